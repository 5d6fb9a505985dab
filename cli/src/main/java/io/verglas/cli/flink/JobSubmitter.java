package io.verglas.cli.flink;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;

/**
 * Submits a job's jar to a session cluster: upload ({@code POST /jars/upload}), run
 * ({@code POST /jars/:id/run}, which runs the entry class's main method on the JobManager),
 * then deletes the uploaded jar (the running job's classes are in the cluster's blob store).
 * One progress line per step goes to {@code progress}.
 */
public final class JobSubmitter {
  private final FlinkRestClient rest;
  private final PrintStream progress;

  public JobSubmitter(FlinkRestClient rest, PrintStream progress) {
    this.rest = rest;
    this.progress = progress;
  }

  /** The new job's id; failures say "Cannot submit the NAME job: ...". */
  public String submit(JobJar job, JobRun run) {
    try {
      long start = System.nanoTime();
      progress.printf("Uploading %s (%d MB) to %s ...%n", job.jar().getFileName(),
          Files.size(job.jar()) >> 20, rest.base());
      String jarId = rest.upload(job.jar());
      progress.printf("Starting %s (uploaded in %.1f s) ...%n", job.entryClass(), seconds(start));
      String jobId;
      try {
        jobId = rest.run(jarId, run);
      } finally {
        rest.deleteJar(jarId);
      }
      progress.printf("Submitted the %s job in %.1f s: job id %s%n", job.name(), seconds(start), jobId);
      return jobId;
    } catch (FlinkRestException e) {
      throw new IllegalStateException("Cannot submit the " + job.name() + " job: " + e.getMessage()
          + hint(e), e);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot submit the " + job.name() + " job: cannot read "
          + job.jar() + ": " + e.getMessage(), e);
    }
  }

  private static String hint(FlinkRestException e) {
    return e.status() == 413
        ? " (the cluster takes smaller uploads: raise its rest.server.max-content-length)" : "";
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
