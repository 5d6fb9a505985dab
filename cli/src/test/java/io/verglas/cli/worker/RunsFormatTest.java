package io.verglas.cli.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.JobStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code runs} lines its columns up on the identities it lists, however long (bounded). */
class RunsFormatTest {
  private static final Instant DUE = Instant.parse("2026-12-04T16:00:00Z");

  @Test
  void theStateColumnStartsAtTheSamePlaceOnEveryRow() {
    List<JobStatus> jobs = List.of(job("echo/manual/1"),
        job("echo/raw/0f8fad5b-d9cb-469f-a165-70867728950e:5238912031123456789"));
    String format = RunsCommand.format(jobs);
    List<String> lines = List.of(String.format(format, "JOB", "STATE", "ATTEMPTS", "DUE", "E"),
        row(format, jobs.get(0)), row(format, jobs.get(1)));
    int column = jobs.get(1).identity().length() + 1;
    assertThat(lines).allSatisfy(line -> assertThat(line.charAt(column - 1)).isEqualTo(' '));
    assertThat(lines).extracting(line -> line.substring(column, column + 5))
        .containsExactly("STATE", "dead ", "dead ");
  }

  @Test
  void theJobColumnIsBounded() {
    String format = RunsCommand.format(List.of(job("x".repeat(500))));
    assertThat(String.format(format, "JOB", "S", 1, "-", "")).startsWith("JOB"
        + " ".repeat(RunsCommand.MAX_JOB_CHARS - 3) + " S");
    assertThat(RunsCommand.format(List.of())).startsWith("%-3s ");
  }

  private static String row(String format, JobStatus job) {
    return String.format(format, job.identity(), "dead", job.attempts(), "-", "");
  }

  private static JobStatus job(String identity) {
    return new JobStatus(identity, JobState.DEAD, 1, 1, DUE, Optional.empty(), Optional.empty());
  }
}
