package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.cluster.process.ChildClusterNode;
import io.verglas.cache.cluster.process.ClusterNodeProcess;
import io.verglas.cache.cluster.process.NodeSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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

  @TempDir
  Path root;

  private final List<ChildClusterNode> children = new ArrayList<>();

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
        if (nodes[2].child.view().owner(BUCKET, key(o)).orElseThrow().id().equals("node-2")) {
          assertThat(read(nodes[2], o))
              .isEqualTo(objects[o]);
          owned++;
        }
      }
      assertThat(owned).isPositive();
      assertThat(nodes[2].child.metric("verglas_cache_cluster_warmed_from_previous_owner_total"))
          .as("blocks the returning node took from their owners while it was away").isEqualTo(owned);
    } finally {
      for (Node node : nodes) {
        if (node != null) {
          node.s3.close();
        }
      }
      for (ChildClusterNode child : children) {
        child.close(); // a graceful leave for those still running
      }
    }
  }

  private static final String BUCKET = TestingCacheNode.BUCKET;

  private record Node(ChildClusterNode child, S3Client s3) {}

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
      nodes[2].child.kill();
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

  /** Node {@code index} as a process of its own; peer timeout 5 s: a loaded test machine must not turn a slow peer into an origin read the test counts. */
  private Node start(int index, int[] ports) throws IOException {
    NodeSettings settings = NodeSettings.builder(Arrays.stream(ports).boxed().toList(), TestingCluster.BLOCK,
        TestingCluster.CAPACITY).index(index).originDir(root.resolve("origin")).peerTimeout(Duration.ofSeconds(5)).build();
    ChildClusterNode child = ChildClusterNode.start(settings, Map.of(
        ClusterNodeProcess.SECRET_ENV, "a-test-cluster-secret",
        ClusterNodeProcess.ACCESS_KEY_ENV, TestingCacheNode.ACCESS_KEY,
        ClusterNodeProcess.SECRET_KEY_ENV, TestingCacheNode.SECRET_KEY),
        root.resolve("node-" + index + "-" + children.size() + ".log"));
    children.add(child);
    return new Node(child, TestingCluster.client(child.endpoint()));
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

  private void awaitMembers(int count, Node... nodes) throws InterruptedException {
    for (Node node : nodes) {
      node.child.awaitMembers(count, Duration.ofSeconds(60));
    }
  }

  private JsonNode self(Node node) {
    for (JsonNode member : node.child.cluster().get("members")) {
      if (member.get("self").asBoolean()) {
        return member;
      }
    }
    throw new AssertionError("no member is the node itself: " + node.child.cluster());
  }
}
