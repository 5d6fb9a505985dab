package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.cluster.process.ChildClusterNode;
import io.verglas.cache.cluster.process.ClusterNodeProcess;
import io.verglas.cache.cluster.process.NodeSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Write-back across three cache nodes as processes of their own (k=2, m=1, w=3): the coordinator
 * is killed with SIGKILL while it propagates its acknowledged PUTs; the survivors serve every
 * one of them, and once the coordinator is back on its disk every one reaches the origin, once,
 * and every fragment is released.
 */
class ClusterWriteBackProcessKillITCase {
  private static final String BUCKET = TestingCacheNode.BUCKET;
  private static final int OBJECTS = 24;
  private static final int LOG_TAIL = 40;

  @TempDir
  Path root;

  private final List<ChildClusterNode> children = new ArrayList<>();
  private final List<S3Client> clients = new ArrayList<>();

  @Test
  void aCoordinatorKilledWhilePropagatingLosesAndDuplicatesNothing() throws Exception {
    int[] ports = TestingPorts.free(3);
    try {
      ChildClusterNode[] nodes = new ChildClusterNode[3];
      S3Client[] s3 = new S3Client[3];
      for (int i = 0; i < 3; i++) {
        nodes[i] = start(i, ports);
        s3[i] = clients.get(clients.size() - 1);
      }
      for (ChildClusterNode node : nodes) {
        node.awaitMembers(3, Duration.ofSeconds(60));
      }
      s3[0].createBucket(b -> b.bucket(BUCKET));
      byte[][] objects = new byte[OBJECTS][];
      for (int o = 0; o < OBJECTS; o++) {
        objects[o] = new byte[100_000 + o];
        new Random(o).nextBytes(objects[o]);
        String key = key(o);
        s3[0].putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(objects[o]));
      }
      nodes[0].kill(); // its propagator runs every 200 ms: some writes are on the origin, some not
      long onOriginAtKill = originFiles().size();
      nodes[1].awaitMembers(2, Duration.ofSeconds(60));
      for (int o = 0; o < OBJECTS; o++) {
        String key = key(o);
        assertThat(s3[1].getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).as("object %d", o)
            .isEqualTo(objects[o]);
      }

      ports[0] = TestingPorts.free(1)[0];
      nodes[0] = start(0, ports);
      Eventually.await("every acknowledged PUT on the origin", () -> originFiles().size() == OBJECTS,
          () -> "on the origin: " + originFiles().size() + " (at the kill: " + onOriginAtKill + ")");
      for (int o = 0; o < OBJECTS; o++) {
        assertThat(Files.readAllBytes(root.resolve("origin").resolve(BUCKET).resolve(key(o)))).isEqualTo(objects[o]);
      }
      Eventually.await("every fragment released", () -> fragmentFiles().isEmpty(), this::leftover);
      assertThat(originFiles()).as("exactly the acknowledged keys, nothing else").hasSize(OBJECTS);
    } finally {
      clients.forEach(S3Client::close);
      children.forEach(ChildClusterNode::close);
    }
  }

  private ChildClusterNode start(int index, int[] ports) throws IOException {
    NodeSettings settings = NodeSettings.builder(Arrays.stream(ports).boxed().toList(), TestingCluster.BLOCK,
        TestingCluster.CAPACITY).index(index).originDir(root.resolve("origin")).peerTimeout(Duration.ofSeconds(5))
        .writeBack(root.resolve("wb-" + index), BUCKET, "wb/").build();
    ChildClusterNode child = ChildClusterNode.start(settings, Map.of(
        ClusterNodeProcess.SECRET_ENV, "a-test-cluster-secret",
        ClusterNodeProcess.ACCESS_KEY_ENV, TestingCacheNode.ACCESS_KEY,
        ClusterNodeProcess.SECRET_KEY_ENV, TestingCacheNode.SECRET_KEY),
        root.resolve("node-" + index + "-" + children.size() + ".log"));
    children.add(child);
    clients.add(TestingCluster.client(child.endpoint()));
    return child;
  }

  private static String key(int object) {
    return "wb/object-" + object;
  }

  private List<Path> originFiles() {
    Path dir = root.resolve("origin").resolve(BUCKET).resolve("wb");
    try (Stream<Path> files = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
      return files.toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<Path> fragmentFiles() {
    List<Path> found = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path dir = root.resolve("wb-" + i).resolve("fragments");
      try (Stream<Path> files = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
        files.filter(f -> f.getFileName().toString().endsWith(".frag")).forEach(found::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }

  /** What a failed wait for the release shows: the fragments left (by node) and the end of each node's log. */
  private String leftover() {
    StringBuilder out = new StringBuilder();
    List<Path> left = fragmentFiles();
    out.append(left.size()).append(" left:");
    left.forEach(f -> out.append("\n  ").append(root.relativize(f)));
    try (Stream<Path> logs = Files.list(root)) {
      for (Path log : logs.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
        List<String> lines = Files.readAllLines(log);
        out.append("\n--- ").append(log.getFileName()).append(" (last ").append(Math.min(LOG_TAIL, lines.size()))
            .append(" of ").append(lines.size()).append(" lines)");
        lines.subList(Math.max(0, lines.size() - LOG_TAIL), lines.size()).forEach(l -> out.append("\n").append(l));
      }
    } catch (IOException e) {
      out.append("\n(cannot read the node logs: ").append(e).append(')');
    }
    return out.toString();
  }
}
