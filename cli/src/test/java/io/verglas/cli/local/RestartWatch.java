package io.verglas.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cli.flink.FlinkRestClient;
import io.verglas.cli.flink.JobSummary;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One running job of a session cluster, watched through Flink's REST API ({@link
 * SubtaskAttempts}) from a moment on (a TaskManager's kill, say) until each of its subtasks runs
 * again in a newer attempt. The cluster should serve job details fresh: they come from a cache
 * refreshed every {@code web.refresh-interval}.
 */
final class RestartWatch {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
  private static final long POLL_MILLIS = 50;

  /** nanoTimes at which every subtask had a newer attempt, and at which each of those ran. */
  record Recovery(long restartedAt, long runningAt) {}

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final List<URI> vertices;

  private RestartWatch(List<URI> vertices) {
    this.vertices = vertices;
  }

  /** The running job named {@code jobName} on the cluster at {@code restUrl}. */
  static RestartWatch of(URI restUrl, String jobName) {
    JobSummary job = new FlinkRestClient(restUrl).jobs().stream()
        .filter(j -> j.name().equals(jobName) && j.state().equals(SubtaskAttempts.RUNNING))
        .findFirst().orElseThrow(() -> new IllegalStateException(
            "Cannot watch " + jobName + ": no such job runs on " + restUrl));
    List<URI> vertices = new ArrayList<>();
    for (JsonNode vertex : get(restUrl.resolve("/jobs/" + job.id())).path("vertices")) {
      vertices.add(restUrl.resolve("/jobs/" + job.id() + "/vertices/" + vertex.path("id").asText()));
    }
    return new RestartWatch(List.copyOf(vertices));
  }

  /** The attempts of the job's subtasks now. */
  SubtaskAttempts attempts() {
    List<JsonNode> answers = new ArrayList<>();
    for (URI vertex : vertices) {
      answers.add(get(vertex));
    }
    return SubtaskAttempts.of(answers);
  }

  /**
   * Polls every {@value #POLL_MILLIS} ms until every subtask runs in a newer attempt than in
   * {@code before}.
   */
  Recovery await(SubtaskAttempts before, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long restartedAt = 0;
    while (System.nanoTime() < deadline) {
      SubtaskAttempts now = poll();
      long at = System.nanoTime();
      if (now != null && restartedAt == 0 && now.restartedSince(before)) {
        restartedAt = at;
      }
      if (now != null && now.runningSince(before)) {
        return new Recovery(restartedAt, at);
      }
      AckToVisible.sleep(POLL_MILLIS);
    }
    throw new IllegalStateException("Cannot measure recovery: after " + timeout.toSeconds()
        + " s the subtasks are not all running in a newer attempt than " + before);
  }

  /** The attempts now, or null while the JobManager does not answer. */
  private SubtaskAttempts poll() {
    try {
      return attempts();
    } catch (IllegalStateException e) {
      return null;
    }
  }

  private static JsonNode get(URI uri) {
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri).timeout(CALL_TIMEOUT).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("Cannot watch the job: " + uri + " answered "
            + response.statusCode());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException("Cannot watch the job: " + uri + " does not answer (" + e + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot measure: interrupted", e);
    }
  }
}
