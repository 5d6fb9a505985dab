package io.verglas.cache.cluster.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ClusterNodeProcess} started as a child of this JVM (on this JVM's class path, with
 * {@value #MAX_HEAP} of heap), and what a drill or benchmark asks of it over its admin port: its
 * view, its metrics, its peak resident set (Linux's VmHWM). {@link #kill()} is a SIGKILL;
 * {@link #close()} closes its standard input, so it leaves the cluster, and waits for it.
 */
public final class ChildClusterNode implements AutoCloseable {
  static final String MAX_HEAP = "-Xmx256m";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final String id;
  private final URI endpoint;
  private final URI admin;
  private long peakRssMb = -1;

  private ChildClusterNode(Process process, String id, URI endpoint, URI admin) {
    this.process = process;
    this.id = id;
    this.endpoint = endpoint;
    this.admin = admin;
  }

  /**
   * Starts the node and waits for its READY line; {@code environment} holds the secrets (see
   * {@link ClusterNodeProcess}); its standard error goes to {@code log}.
   */
  public static ChildClusterNode start(NodeSettings settings, Map<String, String> environment, Path log)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        MAX_HEAP, "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        ClusterNodeProcess.class.getName()));
    command.addAll(settings.arguments());
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
    builder.environment().putAll(environment);
    Process process = builder.start();
    String ready = awaitReady(process);
    if (ready == null) {
      process.destroyForcibly();
      throw new IllegalStateException("Cannot start cluster node " + settings.nodeId()
          + ": it ended without a READY line (see " + log + ")");
    }
    String[] ports = ready.split(" ");
    return new ChildClusterNode(process, settings.nodeId(), URI.create("http://127.0.0.1:" + ports[1]),
        URI.create("http://127.0.0.1:" + ports[2]));
  }

  /**
   * The READY line, skipping what comes before it (a logging library's own status lines), or
   * null if the output ends first; what comes after it is read and dropped, so a chatty node
   * never blocks on a full pipe.
   */
  private static String awaitReady(Process process) throws IOException {
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith("READY ")) {
        Thread drain = new Thread(() -> {
          try {
            while (out.readLine() != null) {
              // dropped
            }
          } catch (IOException ended) {
            // the process is gone
          }
        }, "cluster-node-output-" + process.pid());
        drain.setDaemon(true);
        drain.start();
        return line;
      }
    }
    return null;
  }

  public String id() {
    return id;
  }

  /** The S3 endpoint. */
  public URI endpoint() {
    return endpoint;
  }

  public URI admin() {
    return admin;
  }

  /** {@code GET /cluster}: members, shares and this node's counters. */
  public JsonNode cluster() {
    try {
      return JSON.readTree(get("/cluster"));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + id + "'s cluster report: " + e.getMessage(), e);
    }
  }

  /** The node's view, rebuilt from {@link #cluster()}: owners computed from it match the node's. */
  public ClusterView view() {
    JsonNode cluster = cluster();
    List<Member> members = new ArrayList<>();
    for (JsonNode m : cluster.get("members")) {
      String[] peer = m.get("peer").asText().split(":");
      members.add(new Member(m.get("id").asText(), peer[0], Integer.parseInt(peer[1]),
          m.get("capacityBytes").asLong(), MemberState.valueOf(m.get("state").asText())));
    }
    return ClusterView.of(cluster.get("viewId").asLong(), members);
  }

  /** A counter or gauge from {@code GET /metrics}, by its full name. */
  public long metric(String name) {
    for (String line : get("/metrics").split("\n")) {
      if (line.startsWith(name + " ")) {
        return (long) Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new IllegalStateException("Cannot read metric " + name + " of " + id + ": not reported");
  }

  /** Waits until the node sees {@code members} members. */
  public void awaitMembers(int members, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (view().members().size() != members) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot see the cluster converge: " + id + " does not see "
            + members + " members within " + timeout + ": " + cluster());
      }
      Thread.sleep(50);
    }
  }

  /** Peak resident set of the process in MiB (VmHWM), as last read while it ran; -1 if unknown. */
  public synchronized long peakRssMb() {
    if (process.isAlive()) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
          if (line.startsWith("VmHWM:")) {
            peakRssMb = Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
          }
        }
      } catch (IOException | NumberFormatException e) {
        // not Linux, or gone meanwhile: keep the last figure
      }
    }
    return peakRssMb;
  }

  /** SIGKILL: no leave message, its sockets closed by the kernel. */
  public void kill() throws InterruptedException {
    peakRssMb();
    process.destroyForcibly();
    process.waitFor(20, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    peakRssMb();
    try {
      process.getOutputStream().close(); // a graceful leave
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private String get(String path) {
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(admin.resolve(path)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("Cannot read " + path + " of " + id + ": HTTP " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + path + " of " + id + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot read " + path + " of " + id + ": interrupted", e);
    }
  }
}
