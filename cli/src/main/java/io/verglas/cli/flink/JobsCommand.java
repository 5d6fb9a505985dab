package io.verglas.cli.flink;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code verglas jobs [--cluster URL]}: the session cluster's jobs as a table. */
@Command(name = "jobs", mixinStandardHelpOptions = true,
    description = "List the jobs of a Flink session cluster (newest first).")
public final class JobsCommand implements Callable<Integer> {
  private static final String ROW = "%-32s  %-11s  %-20s  %10s  %s%n";
  private static final DateTimeFormatter STARTED =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  @Mixin
  ClusterOption cluster;

  @Override
  public Integer call() {
    FlinkRestClient rest = cluster.client();
    List<JobSummary> jobs;
    try {
      jobs = rest.jobs();
    } catch (FlinkRestException e) {
      throw new IllegalStateException("Cannot list the jobs: " + e.getMessage(), e);
    }
    if (jobs.isEmpty()) {
      System.out.println("No jobs on " + rest.base());
      return 0;
    }
    System.out.printf(ROW, "JOB ID", "STATE", "STARTED (UTC)", "DURATION", "NAME");
    for (JobSummary job : jobs) {
      System.out.printf(ROW, job.id(), job.state(), STARTED.format(Instant.ofEpochMilli(job.startTime())),
          duration(job.durationMillis()), job.name());
    }
    return 0;
  }

  private static String duration(long millis) {
    Duration d = Duration.ofMillis(Math.max(0, millis));
    return d.toHours() > 0 ? String.format("%dh%02dm", d.toHours(), d.toMinutesPart())
        : String.format("%dm%02ds", d.toMinutes(), d.toSecondsPart());
  }
}
