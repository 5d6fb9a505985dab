package io.verglas.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which execution attempt of each subtask of a Flink job is current, and in which state, from
 * the REST API's vertex answers ({@code GET /jobs/:id/vertices/:vid}: {@code subtasks[].attempt}
 * and {@code subtasks[].status}). Compared with the attempts seen at a TaskManager's kill, they
 * tell the job's restart from its tasks running again: a vertex's own {@code status} in {@code
 * GET /jobs/:id} is an aggregate (RUNNING once one of its subtasks runs), and until the
 * JobManager notices the loss it still reports the dead TaskManager's tasks as RUNNING; a newer
 * attempt exists only after the JobManager has failed the old one.
 */
final class SubtaskAttempts {
  static final String RUNNING = "RUNNING";

  /** One subtask's current attempt and its state ({@code DEPLOYING}, {@code RUNNING}, ...). */
  record Attempt(int number, String status) {}

  private final Map<String, Attempt> bySubtask;

  private SubtaskAttempts(Map<String, Attempt> bySubtask) {
    this.bySubtask = Map.copyOf(bySubtask);
  }

  /** The subtasks of the given vertex answers, each keyed by its vertex's id and its index. */
  static SubtaskAttempts of(Iterable<JsonNode> vertexAnswers) {
    Map<String, Attempt> bySubtask = new LinkedHashMap<>();
    for (JsonNode vertex : vertexAnswers) {
      String vertexId = vertex.path("id").asText();
      for (JsonNode subtask : vertex.path("subtasks")) {
        bySubtask.put(vertexId + "/" + subtask.path("subtask").asInt(),
            new Attempt(subtask.path("attempt").asInt(), subtask.path("status").asText()));
      }
    }
    return new SubtaskAttempts(bySubtask);
  }

  int size() {
    return bySubtask.size();
  }

  /** Every subtask of {@code before} has a newer attempt: the JobManager has restarted each. */
  boolean restartedSince(SubtaskAttempts before) {
    return everyNewer(before, false);
  }

  /** Every subtask of {@code before} has a newer attempt, and each of those is RUNNING. */
  boolean runningSince(SubtaskAttempts before) {
    return everyNewer(before, true);
  }

  private boolean everyNewer(SubtaskAttempts before, boolean running) {
    if (before.bySubtask.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, Attempt> old : before.bySubtask.entrySet()) {
      Attempt now = bySubtask.get(old.getKey());
      if (now == null || now.number() <= old.getValue().number()
          || (running && !now.status().equals(RUNNING))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return bySubtask.toString();
  }
}
