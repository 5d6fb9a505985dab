package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.Catalogs;
import io.verglas.cli.Verglas;
import io.verglas.workers.check.WorkerCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code verglas worker check} against a whole local stack: the docs' example worker (compiled
 * from docs/examples/workers into a jar, with that directory's fixture) passes, with a kill,
 * through the launcher's main class in a process of its own; a worker that writes a random
 * value fails in this JVM with the table and rows that differ, and exit status 1. A check,
 * passed or failed, leaves no scratch namespace in the catalog. One passing check, not one in
 * this JVM and another through the launcher: a passing check runs the worker five times, each
 * in a process of its own.
 */
class WorkerCheckITCase {
  @RegisterExtension
  static final LocalStackExtension local = LocalStackExtension.builder().build();
  private static Path endpoints;

  @BeforeAll
  static void writeEndpoints() {
    endpoints = local.dir().resolve("check-endpoints.json");
    local.stack().endpoints().write(endpoints);
  }

  @Test
  void docsExampleWorkerPassesThroughTheLauncher(@TempDir Path work) throws Exception {
    Path examples = ExampleJar.root().resolve("docs/examples/workers");
    Path jar = ExampleJar.build(examples.resolve("HourlyAggregate.java"), work);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(arg -> arg.startsWith("--add-opens")).forEach(command::add);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Verglas.class.getName(),
        "worker", "check", jar.toString(), "example.HourlyAggregate",
        "--fixture", examples.resolve("hourly-check.json").toString(),
        "--endpoints", endpoints.toString(), "--kills", "1"));
    Path log = work.resolve("check.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    boolean exited = process.waitFor(3, TimeUnit.MINUTES);
    if (!exited) {
      process.destroyForcibly();
    }
    String output = Files.readString(log);
    System.out.print(output);
    assertThat(exited).as("exited within 3 minutes: %s", output).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).contains("run 1: 1 commits, 2 rows", "its replay: the same table state",
        "run 2: the same table state as run 1", "run 3: the same table state as run 1",
        "PASS: the same table state");
    assertNoScratchNamespaces();
  }

  @Test
  void nondeterministicWorkerFails(@TempDir Path work) throws Exception {
    Path source = Files.createDirectories(work.resolve("src")).resolve("Coin.java");
    Files.writeString(source, """
        package example;

        import io.verglas.workers.api.Worker;
        import io.verglas.workers.api.WorkerContext;
        import java.util.List;
        import java.util.Map;
        import java.util.UUID;

        /** Not a conforming worker: what it writes depends on chance, not on its trigger. */
        public final class Coin implements Worker {
          @Override
          public void handle(WorkerContext ctx) {
            ctx.output("out").commit(List.of(Map.of("id", UUID.randomUUID().toString())));
          }
        }
        """);
    Path fixture = work.resolve("coin.json");
    Files.writeString(fixture, """
        {"tables": [{"name": "shop.coins", "columns": "id string not null", "output": "out"}]}
        """);
    Check check = check(ExampleJar.build(source, work), "example.Coin", fixture);
    assertThat(check.exit()).as(check.output()).isEqualTo(1);
    assertThat(check.output())
        // runs 2 and 3 go in parallel: the first to differ is reported
        .containsPattern("FAIL: table shop.coins differs between run 1 and run [23]: 1 vs 1 rows;")
        .doesNotContain("PASS");
  }

  private record Check(int exit, String output) {}

  /** Runs {@code verglas worker check} in this JVM and captures what it prints. */
  private static Check check(Path jar, String workerClass, Path fixture) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = new CommandLine(new Verglas()).execute("worker", "check", jar.toString(), workerClass,
          "--fixture", fixture.toString(), "--endpoints", endpoints.toString(), "--kills", "1");
    } finally {
      System.setOut(out);
    }
    String output = captured.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    assertNoScratchNamespaces();
    return new Check(exit, output);
  }

  /** The catalog holds no namespace a check made: its scratch tables went with theirs. */
  private static void assertNoScratchNamespaces() {
    EndpointsFile e = local.stack().endpoints();
    Catalog catalog = Catalogs.load(e.catalogName(), e.catalogProperties());
    try {
      assertThat(((SupportsNamespaces) catalog).listNamespaces()).extracting(Namespace::toString)
          .noneMatch(name -> name.startsWith(WorkerCheck.SCRATCH_PREFIX));
    } finally {
      if (catalog instanceof java.io.Closeable closeable) {
        try {
          closeable.close();
        } catch (java.io.IOException ignored) {
          // a test's catalog client: nothing to keep
        }
      }
    }
  }
}
