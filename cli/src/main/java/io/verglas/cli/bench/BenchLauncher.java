package io.verglas.cli.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code verglas bench ...}: runs the bench module's own command ({@code
 * io.verglas.bench.BenchCommand}) in a child JVM on the bench module's jar and classpath, with
 * this JVM's options, and returns its exit code. The benchmarks' peers (Paimon, Iceberg's Flink
 * sink, ...) stay off the launcher's classpath; every argument after {@code bench}, {@code
 * --help} included, is the bench command's.
 */
@Command(name = "bench",
    description = "Run a macro benchmark against its peer in one run and write JSON results "
        + "{benchmark, quick, metrics, peers, ratios, environment}. Usage: bench NAME [--quick] [--tables N] "
        + "--out FILE.json | bench --list | bench --help")
public final class BenchLauncher implements Callable<Integer> {
  static final String MAIN_CLASS = "io.verglas.bench.BenchCommand";
  static final String HOME_PROPERTY = "verglas.home";

  @Unmatched
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    Process child = new ProcessBuilder(command(home(), args)).inheritIO().start();
    Thread stopChild = new Thread(child::destroy, "verglas-bench-stop");
    Runtime.getRuntime().addShutdownHook(stopChild);
    try {
      return child.waitFor();
    } finally {
      removeHook(stopChild);
    }
  }

  /** The child's command line: this JVM's binary and options, the bench classpath, the args. */
  static List<String> command(Path home, List<String> args) throws IOException {
    Path jar = home.resolve("bench/target/verglas-bench.jar");
    Path classpath = home.resolve("bench/target/bench.classpath");
    if (!Files.isRegularFile(jar) || !Files.isRegularFile(classpath)) {
      throw new IllegalStateException("Cannot run benchmarks: the bench module is not built under "
          + home + " (run: mvn -B -DskipTests -pl bench -am package)");
    }
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add("-cp");
    command.add(jar + java.io.File.pathSeparator + Files.readString(classpath, StandardCharsets.UTF_8).trim());
    command.add(MAIN_CLASS);
    command.addAll(args);
    return command;
  }

  /** The checkout: the launcher's {@code -Dverglas.home}, else three levels above this jar. */
  static Path home() throws URISyntaxException {
    String configured = System.getProperty(HOME_PROPERTY);
    if (configured != null) {
      return Path.of(configured);
    }
    Path jar = Path.of(BenchLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return jar.getParent().getParent().getParent(); // <home>/cli/target/verglas-cli.jar
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs or ran: the child is being stopped
    }
  }
}
