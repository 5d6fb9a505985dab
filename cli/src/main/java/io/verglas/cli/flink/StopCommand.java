package io.verglas.cli.flink;

import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code verglas stop JOB_ID [--savepoint-dir DIR]}: stop with a savepoint, print its path. */
@Command(name = "stop", mixinStandardHelpOptions = true,
    description = "Stop a job of a Flink session cluster with a savepoint and print the "
        + "savepoint's path, for `verglas submit --from-savepoint PATH [--parallelism N]`.")
public final class StopCommand implements Callable<Integer> {
  private static final Duration TIMEOUT = Duration.ofMinutes(10);

  @Parameters(index = "0", paramLabel = "JOB_ID", description = "As `verglas jobs` lists it")
  String jobId;

  @Mixin
  ClusterOption cluster;

  @Option(names = "--savepoint-dir", paramLabel = "DIR",
      description = "Where the savepoint goes (default: the cluster's savepoint directory)")
  String savepointDir;

  @Override
  public Integer call() {
    System.out.println("Stopping job " + jobId + " with a savepoint ...");
    String path;
    try {
      path = cluster.client().stopWithSavepoint(jobId, savepointDir, TIMEOUT);
    } catch (FlinkRestException e) {
      throw new IllegalStateException("Cannot stop the job " + jobId + ": " + e.getMessage(), e);
    }
    System.out.println(path);
    return 0;
  }
}
