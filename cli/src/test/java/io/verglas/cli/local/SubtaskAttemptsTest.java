package io.verglas.cli.local;

import static org.apache.flink.runtime.execution.ExecutionState.DEPLOYING;
import static org.apache.flink.runtime.execution.ExecutionState.INITIALIZING;
import static org.apache.flink.runtime.execution.ExecutionState.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.rest.messages.JobVertexDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.SubtaskExecutionAttemptDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.metrics.IOMetricsInfo;
import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.junit.jupiter.api.Test;

/**
 * The recovery measurement's decision on answers of {@code GET /jobs/:id/vertices/:vid} as
 * Flink's REST endpoint writes them (its own response class and object mapper): a source of
 * parallelism 1 and a writer of parallelism 2, attempt 0 of each at the kill.
 */
class SubtaskAttemptsTest {
  private static final JobVertexID SOURCE = new JobVertexID(1, 1);
  private static final JobVertexID WRITER = new JobVertexID(2, 2);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SubtaskAttempts atKill = attempts(
      vertex(SOURCE, subtask(0, RUNNING, 0)),
      vertex(WRITER, subtask(0, RUNNING, 0), subtask(1, RUNNING, 0)));

  @Test
  void beforeTheJobManagerNoticesTheLossTheOldAttemptsStillRun() {
    assertThat(atKill.size()).isEqualTo(3);
    assertThat(atKill.restartedSince(atKill)).isFalse();
    assertThat(atKill.runningSince(atKill)).isFalse();
  }

  @Test
  void newAttemptsStillDeployingOrRestoringAreARestartNotRunningTasks() {
    SubtaskAttempts restarted = attempts(
        vertex(SOURCE, subtask(0, RUNNING, 1)),
        vertex(WRITER, subtask(0, DEPLOYING, 1), subtask(1, INITIALIZING, 1)));
    assertThat(restarted.restartedSince(atKill)).isTrue();
    assertThat(restarted.runningSince(atKill)).isFalse();
  }

  /** Flink's aggregate status of the writer vertex would read RUNNING here. */
  @Test
  void aVertexWithOneSubtaskRunningAgainAndOneOnTheOldAttemptHasNotRestarted() {
    SubtaskAttempts partly = attempts(
        vertex(SOURCE, subtask(0, RUNNING, 1)),
        vertex(WRITER, subtask(0, RUNNING, 1), subtask(1, RUNNING, 0)));
    assertThat(partly.restartedSince(atKill)).isFalse();
    assertThat(partly.runningSince(atKill)).isFalse();
  }

  @Test
  void everySubtaskRunningInANewerAttemptIsRecovered() {
    SubtaskAttempts recovered = attempts(
        vertex(SOURCE, subtask(0, RUNNING, 2)),
        vertex(WRITER, subtask(0, RUNNING, 1), subtask(1, RUNNING, 1)));
    assertThat(recovered.restartedSince(atKill)).isTrue();
    assertThat(recovered.runningSince(atKill)).isTrue();
  }

  @Test
  void aVertexMissingFromTheAnswersOrNothingSeenAtTheKillIsNoRecovery() {
    SubtaskAttempts sourceOnly = attempts(vertex(SOURCE, subtask(0, RUNNING, 1)));
    assertThat(sourceOnly.runningSince(atKill)).isFalse();
    assertThat(sourceOnly.runningSince(attempts())).isFalse();
  }

  private static SubtaskAttempts attempts(JsonNode... vertices) {
    return SubtaskAttempts.of(List.of(vertices));
  }

  private static JsonNode vertex(JobVertexID id, SubtaskExecutionAttemptDetailsInfo... subtasks) {
    JobVertexDetailsInfo answer = new JobVertexDetailsInfo(id, "vertex-" + id, subtasks.length,
        128, System.currentTimeMillis(), new ArrayList<>(List.of(subtasks)));
    try {
      return JSON.readTree(RestMapperUtils.getStrictObjectMapper().writeValueAsString(answer));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot write the vertex answer: " + e.getMessage(), e);
    }
  }

  private static SubtaskExecutionAttemptDetailsInfo subtask(int index, ExecutionState status, int attempt) {
    IOMetricsInfo metrics = new IOMetricsInfo(0, true, 0, true, 0, true, 0, true, 0, 0, 0.0);
    Map<ExecutionState, Long> statusDuration = new EnumMap<>(ExecutionState.class);
    for (ExecutionState state : ExecutionState.values()) {
      statusDuration.put(state, state == status ? 5_000L : 0L);
    }
    return new SubtaskExecutionAttemptDetailsInfo(index, status, attempt, "127.0.0.1:6121",
        1_000L, -1L, 5_000L, metrics, "taskmanager-" + attempt, statusDuration, List.of());
  }
}
