package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Three cache nodes as processes of their own on loopback, under a read load; one is killed with
 * SIGKILL (no leave message, sockets dropped by the kernel), then started again, empty, under its
 * old id. Reads through the survivors never fail; the returning node gets its share back and
 * takes its blocks from the members that owned them meanwhile instead of from the origin.
 */
class ClusterProcessKillTest {
  private static final int OBJECTS = 48;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path root;

  private final List<Process> processes = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void survivorsFailNoReadAndTheReturningNodeGetsItsShareAndWarmthBack() throws Exception {
    int[] ports = TestingPorts.free(3);
    Node[] nodes = new Node[3];
    try {
      for (int i = 0; i < 3; i++) {
        nodes[i] = start(i, ports);
      }
      awaitMembers(3, nodes);
      byte[][] objects = write(nodes[0]);
      for (Node node : nodes) {
        readAll(node, objects);
      }

      assertThat(readsWhileKilling(nodes, objects)).as("failed reads through the survivors").isZero();

      ports[2] = TestingPorts.free(1)[0];
      nodes[2] = start(2, ports);
      awaitMembers(3, nodes);
      JsonNode self = self(nodes[2]);
      assertThat(self.get("share").asDouble()).isBetween(0.25, 0.42);

      int owned = 0;
      for (int o = 0; o < OBJECTS; o++) {
        if (owner(nodes[2], key(o)).equals("node-2")) {
          assertThat(read(nodes[2], o))
              .isEqualTo(objects[o]);
          owned++;
        }
      }
      assertThat(owned).isPositive();
      assertThat(metric(nodes[2], "verglas_cache_cluster_warmed_from_previous_owner_total"))
          .as("blocks the returning node took from their owners while it was away").isEqualTo(owned);
    } finally {
      for (Node node : nodes) {
        if (node != null) {
          node.s3.close();
        }
      }
      for (Process p : processes) {
        p.getOutputStream().close(); // a graceful leave for those still running
      }
      for (Process p : processes) {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private static final String BUCKET = TestingCacheNode.BUCKET;

  private record Node(Process process, S3Client s3, URI admin) {}

  /**
   * Two readers cycle through every object via nodes 0 and 1 while node 2 is killed; they go on
   * until both survivors see the two-member view and then two more full cycles. Returns failures.
   */
  private long readsWhileKilling(Node[] nodes, byte[][] objects) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong failed = new AtomicLong();
    AtomicLong[] cycles = {new AtomicLong(), new AtomicLong()};
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        Node node = nodes[t];
        AtomicLong done = cycles[t];
        readers.add(pool.submit(() -> {
          while (!stop.get()) {
            for (int o = 0; o < OBJECTS; o++) {
              try {
                byte[] read = read(node, o);
                if (!Arrays.equals(read, objects[o])) {
                  failed.incrementAndGet();
                }
              } catch (RuntimeException e) {
                failed.incrementAndGet();
              }
            }
            done.incrementAndGet();
          }
          return null;
        }));
      }
      Thread.sleep(300);
      nodes[2].process.destroyForcibly(); // SIGKILL
      assertThat(nodes[2].process.waitFor(20, TimeUnit.SECONDS)).isTrue();
      awaitMembers(2, nodes[0], nodes[1]);
      long[] seen = {cycles[0].get(), cycles[1].get()};
      Eventually.await("two more cycles of reads", () -> cycles[0].get() >= seen[0] + 2 && cycles[1].get() >= seen[1] + 2);
      stop.set(true);
      for (Future<?> reader : readers) {
        reader.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return failed.get();
  }

  private Node start(int index, int[] ports) throws IOException {
    String gossip = Arrays.stream(ports).mapToObj(Integer::toString).collect(Collectors.joining(","));
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), ClusterNodeProcess.class.getName(),
        Integer.toString(index), root.resolve("origin").toString(), gossip)
        .redirectError(root.resolve("node-" + index + "-" + processes.size() + ".log").toFile())
        .start();
    processes.add(process);
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String ready = out.readLine();
    assertThat(ready).as("node %d's first line (see its log in %s)", index, root).startsWith("READY ");
    String[] fields = ready.split(" ");
    return new Node(process, TestingCluster.client(URI.create("http://127.0.0.1:" + fields[1])),
        URI.create("http://127.0.0.1:" + fields[2]));
  }

  private byte[][] write(Node node) {
    node.s3.createBucket(b -> b.bucket(BUCKET));
    byte[][] objects = new byte[OBJECTS][];
    for (int o = 0; o < OBJECTS; o++) {
      objects[o] = new byte[TestingCluster.BLOCK];
      Arrays.fill(objects[o], (byte) o);
      String key = key(o);
      node.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(objects[o]));
    }
    return objects;
  }

  private static void readAll(Node node, byte[][] objects) {
    for (int o = 0; o < OBJECTS; o++) {
      assertThat(read(node, o)).isEqualTo(objects[o]);
    }
  }

  private static byte[] read(Node node, int object) {
    return node.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key(object))).asByteArray();
  }

  private static String key(int object) {
    return "data/object-" + object;
  }

  private void awaitMembers(int count, Node... nodes) {
    for (Node node : nodes) {
      Eventually.await("a view of " + count + " members at " + node.admin,
          () -> cluster(node).get("members").size() == count, () -> cluster(node).toString());
    }
  }

  private JsonNode self(Node node) {
    for (JsonNode member : cluster(node).get("members")) {
      if (member.get("self").asBoolean()) {
        return member;
      }
    }
    throw new AssertionError("no member is the node itself: " + cluster(node));
  }

  /** The key's owner in the node's view: the member with the highest rendezvous score. */
  private String owner(Node node, String key) {
    JsonNode cluster = cluster(node);
    List<Member> members = new ArrayList<>();
    for (JsonNode m : cluster.get("members")) {
      String[] peer = m.get("peer").asText().split(":");
      members.add(new Member(m.get("id").asText(), peer[0],
          Integer.parseInt(peer[1]), m.get("capacityBytes").asLong(),
          MemberState.valueOf(m.get("state").asText())));
    }
    return ClusterView.of(cluster.get("viewId").asLong(), members)
        .owner(BUCKET, key).orElseThrow().id();
  }

  private JsonNode cluster(Node node) {
    try {
      return JSON.readTree(get(node.admin.resolve("/cluster")));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private long metric(Node node, String name) {
    for (String line : get(node.admin.resolve("/metrics")).split("\n")) {
      if (line.startsWith(name + " ")) {
        return Long.parseLong(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError("no metric " + name);
  }

  private String get(URI uri) {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      return response.body();
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
