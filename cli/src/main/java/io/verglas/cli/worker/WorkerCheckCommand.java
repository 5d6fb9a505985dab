package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.sdk.VerglasClient;
import io.verglas.workers.check.CheckFixture;
import io.verglas.workers.check.CheckVerdict;
import io.verglas.workers.check.WorkerCheck;
import io.verglas.workers.harness.HarnessSettings;
import io.verglas.workers.harness.WorkerEndpoints;
import io.verglas.workers.harness.WorkerHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code verglas worker check JAR CLASS [--fixture FILE]}: runs the worker twice, replays it and
 * kills it at random points against scratch copies of the fixture's tables on a running stack,
 * and fails (exit 1) unless every run leaves the same tables ({@link WorkerCheck}).
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = "Check that a worker leaves the same table state however often and however "
        + "interrupted it runs for one trigger (exit 0: pass, 1: fail).")
public final class WorkerCheckCommand implements Callable<Integer> {
  @Mixin StackOptions stack;

  @Parameters(index = "0", paramLabel = "JAR", description = "The worker's jar")
  Path jar;

  @Parameters(index = "1", paramLabel = "CLASS", description = "The Worker class, e.g. example.HourlyAggregate")
  String workerClass;

  @Option(names = "--fixture", description = "JSON: tables (columns, primaryKey, rows, output), "
      + "config, secrets, trigger (see docs/workers.md); default: no tables, an hourly tick")
  Path fixture;

  @Option(names = "--kills", description = "Attempts killed at random points before one completes (default: 2)")
  int kills = 2;

  @Option(names = "--seed", description = "Seed of the random kill points (default: random)")
  Long seed;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException("Cannot check worker: no jar at " + jar);
    }
    CheckFixture parsed = fixture == null ? CheckFixture.builder().build()
        : CheckFixtureFile.read(fixture);
    WorkerEndpoints endpoints = stack.endpoints().workerEndpoints(Duration.ofSeconds(60));
    long chosen = seed != null ? seed : System.nanoTime();
    try (VerglasClient client = endpoints.client();
        WorkerHarness harness = new WorkerHarness(endpoints, HarnessSettings.defaults())) {
      CheckVerdict verdict = new WorkerCheck(harness, client, kills, chosen)
          .check(jar.toAbsolutePath(), workerClass, parsed);
      verdict.print(System.out);
      return verdict.passed() ? 0 : 1;
    }
  }
}
