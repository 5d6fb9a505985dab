package io.verglas.cli.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The calls of Flink's REST API that Verglas makes (upload and run a jar, list and cancel
 * jobs, the cluster's TaskManagers), over HTTP/1.1 with {@link HttpClient}. Each failure is a
 * {@link FlinkRestException} naming the cluster, the status and Flink's own message without
 * its stack frames.
 */
public final class FlinkRestClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** Running a jar runs its main method on the JobManager, which builds the job graph. */
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
  private static final int MESSAGE_CHARS = 800;
  private static final long POLL_MILLIS = 250;

  private final URI base;
  private final HttpClient http;

  public FlinkRestClient(URI base) {
    String url = base.toString();
    this.base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT).build();
  }

  public URI base() {
    return base;
  }

  /** Whether {@code GET /overview} answers 200. */
  boolean answers() {
    return call(get("/overview", CALL_TIMEOUT)).has("taskmanagers");
  }

  /** The ids of the TaskManagers the JobManager knows. */
  Set<String> taskManagerIds() {
    Set<String> ids = new LinkedHashSet<>();
    call(get("/taskmanagers", CALL_TIMEOUT)).path("taskmanagers")
        .forEach(tm -> ids.add(tm.path("id").asText()));
    return ids;
  }

  /** {@code POST /jars/upload}: the jar's id on the cluster. */
  public String upload(Path jar) {
    String boundary = "verglas-" + UUID.randomUUID();
    String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
        + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
    String tail = "\r\n--" + boundary + "--\r\n";
    BodyPublisher body;
    try {
      body = BodyPublishers.concat(BodyPublishers.ofString(head, StandardCharsets.UTF_8),
          BodyPublishers.ofFile(jar), BodyPublishers.ofString(tail, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new FlinkRestException("cannot read " + jar + ": " + e.getMessage(), 0, e);
    }
    HttpRequest request = HttpRequest.newBuilder(base.resolve("/jars/upload")).timeout(RUN_TIMEOUT)
        .header("Content-Type", "multipart/form-data; boundary=" + boundary).POST(body).build();
    String stored = call(request).path("filename").asText();
    // Flink answers the stored file's path; its name is the jar's id
    return Path.of(stored).getFileName().toString();
  }

  /** {@code POST /jars/:id/run}: the new job's id. */
  public String run(String jarId, JobRun run) {
    ObjectNode body = JSON.createObjectNode();
    body.put("entryClass", run.entryClass());
    body.putArray("programArgsList").addAll(run.args().stream().map(body::textNode).toList());
    if (run.parallelism() != null) {
      body.put("parallelism", run.parallelism());
    }
    if (run.savepointPath() != null) {
      body.put("savepointPath", run.savepointPath());
    }
    HttpRequest request = HttpRequest.newBuilder(base.resolve("/jars/" + jarId + "/run"))
        .timeout(RUN_TIMEOUT).header("Content-Type", "application/json")
        .POST(BodyPublishers.ofString(body.toString())).build();
    return call(request).path("jobid").asText();
  }

  /** {@code DELETE /jars/:id}: frees the uploaded jar's space on the JobManager. */
  public void deleteJar(String jarId) {
    call(HttpRequest.newBuilder(base.resolve("/jars/" + jarId)).timeout(CALL_TIMEOUT).DELETE().build());
  }

  /** {@code GET /jobs/overview}, newest first. */
  public List<JobSummary> jobs() {
    List<JobSummary> jobs = new ArrayList<>();
    for (JsonNode job : call(get("/jobs/overview", CALL_TIMEOUT)).path("jobs")) {
      jobs.add(new JobSummary(job.path("jid").asText(), job.path("name").asText(),
          job.path("state").asText(), job.path("start-time").asLong(), job.path("duration").asLong()));
    }
    jobs.sort((a, b) -> Long.compare(b.startTime(), a.startTime()));
    return jobs;
  }

  /** The state of one job ({@code RUNNING}, {@code FAILED}, ...). */
  public String jobState(String jobId) {
    return call(get("/jobs/" + jobId, CALL_TIMEOUT)).path("state").asText();
  }

  /** {@code PATCH /jobs/:id?mode=cancel}; retained checkpoints stay. */
  public void cancel(String jobId) {
    call(HttpRequest.newBuilder(base.resolve("/jobs/" + jobId + "?mode=cancel"))
        .timeout(CALL_TIMEOUT).method("PATCH", BodyPublishers.noBody()).build());
  }

  /**
   * {@code POST /jobs/:id/stop}: stops the job with a savepoint (into {@code targetDirectory},
   * or the cluster's savepoint directory when null) and waits for it; the savepoint's path.
   */
  public String stopWithSavepoint(String jobId, String targetDirectory, Duration timeout) {
    ObjectNode body = JSON.createObjectNode().put("drain", false);
    if (targetDirectory != null) {
      body.put("targetDirectory", targetDirectory);
    }
    String requestId = call(HttpRequest.newBuilder(base.resolve("/jobs/" + jobId + "/stop"))
        .timeout(CALL_TIMEOUT).header("Content-Type", "application/json")
        .POST(BodyPublishers.ofString(body.toString())).build()).path("request-id").asText();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode status = call(get("/jobs/" + jobId + "/savepoints/" + requestId, CALL_TIMEOUT));
      if ("COMPLETED".equals(status.path("status").path("id").asText())) {
        JsonNode operation = status.path("operation");
        if (operation.has("failure-cause")) {
          throw new FlinkRestException("the savepoint of job " + jobId + " failed: "
              + shorten(operation.path("failure-cause").path("stack-trace").asText().lines()
                  .findFirst().orElse("no reason given")), 200, null);
        }
        return operation.path("location").asText();
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new FlinkRestException("interrupted while waiting for the savepoint of job " + jobId, 0, e);
      }
    }
    throw new FlinkRestException("the savepoint of job " + jobId + " did not complete within "
        + timeout.toSeconds() + " s", 0, null);
  }

  private HttpRequest get(String path, Duration timeout) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).GET().build();
  }

  private JsonNode call(HttpRequest request) {
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new FlinkRestException("the cluster at " + base + " does not answer (" + e + ")", 0, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlinkRestException("interrupted while calling the cluster at " + base, 0, e);
    }
    if (response.statusCode() / 100 != 2) {
      throw new FlinkRestException("the cluster at " + base + " answered " + response.statusCode()
          + ": " + errorMessage(response.body()), response.statusCode(), null);
    }
    try {
      return response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
    } catch (IOException e) {
      throw new FlinkRestException("the cluster at " + base + " answered what is not JSON: "
          + shorten(response.body()), response.statusCode(), e);
    }
  }

  /** Flink's {@code errors} without stack frames, or the body as it is. */
  static String errorMessage(String body) {
    try {
      JsonNode errors = JSON.readTree(body).path("errors");
      if (errors.isArray() && !errors.isEmpty()) {
        List<String> messages = new ArrayList<>();
        for (JsonNode error : errors) {
          error.asText().lines().map(String::strip)
              .filter(line -> !line.isEmpty() && !line.startsWith("at ") && !line.startsWith("...")
                  && !line.startsWith("<") && !line.endsWith(">"))
              .forEach(messages::add);
        }
        // the first message says what failed, the last cause why; those between repeat them
        return shorten(messages.size() <= 2 ? String.join(" | ", messages)
            : messages.get(0) + " | ... | " + messages.get(messages.size() - 1));
      }
    } catch (IOException e) {
      // not JSON: the body as it is
    }
    return shorten(body);
  }

  private static String shorten(String text) {
    return text.length() <= MESSAGE_CHARS ? text : text.substring(0, MESSAGE_CHARS) + " ...";
  }
}
