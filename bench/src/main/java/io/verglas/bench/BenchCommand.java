package io.verglas.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code verglas bench NAME [--quick] [--tables N] --out FILE.json}: the bench module's own entry point. The
 * launcher starts it in a JVM of its own with this module's classpath (the benchmarks' peers,
 * Paimon and Iceberg's Flink sink among them), so the everyday launcher does not carry them.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run a macro benchmark against its peer in one run and write JSON results "
        + "{benchmark, quick, metrics, peers, ratios, environment}.")
public final class BenchCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "NAME", description = "Benchmark name (see --list)", arity = "0..1")
  String name;

  @Option(names = "--quick", description = "Smaller input, for a fast check")
  boolean quick;

  @Option(names = "--tables", description = "Tables of the scale benchmark (default 100000, quick 10000)")
  Integer tables;

  @Option(names = "--out", description = "Where to write the JSON result")
  Path out;

  @Option(names = "--list", description = "List the benchmarks")
  boolean list;

  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchCommand()).setExecutionExceptionHandler((e, cmd, parsed) -> {
      cmd.getErr().println("verglas bench: " + (e.getMessage() != null ? e.getMessage() : e));
      if ("1".equals(System.getenv("VERGLAS_DEBUG"))) {
        e.printStackTrace(cmd.getErr());
      }
      return 1;
    }).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (list || name == null) {
      Benchmarks.all().forEach(b -> System.out.println(b.name() + "\t" + b.description()));
      return name == null && !list ? 2 : 0;
    }
    Benchmark benchmark = Benchmarks.find(name).orElseThrow(() -> new IllegalArgumentException(
        "Unknown benchmark: " + name + " (available: "
            + Benchmarks.all().stream().map(Benchmark::name).collect(Collectors.joining(", ")) + ")"));
    if (out == null) {
      throw new IllegalArgumentException("Missing --out FILE.json");
    }
    if (tables != null) {
      if (tables < 1) {
        throw new IllegalArgumentException("Invalid --tables: " + tables + " (at least 1)");
      }
      System.setProperty(io.verglas.bench.scale.ScaleBenchmark.TABLES_PROPERTY, tables.toString());
    }
    BenchmarkReport report = benchmark.run(quick);
    report.write(out);
    System.out.println(report.toJson());
    return 0;
  }
}
