package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.CacheNode;
import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.writeback.Scrubber;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Erasure-coded write-back across three cache nodes in one JVM (k=2, m=1, w=3, 64 KiB cells):
 * fragments on every node, reads of buffered writes through every node, propagation releasing
 * them everywhere, a node killed, a coordinator's disk wiped.
 */
class ClusterWriteBackTest {
  private static final int CELL = 64 * 1024;
  private static final String BUCKET = TestingCluster.BUCKET;

  @TempDir
  Path root;
  @TempDir
  Path buffers;

  private TestingCluster start() {
    return TestingCluster.withWriteBack(root, buffers, CELL);
  }

  @Test
  void aPutThroughOneNodeIsReadThroughEveryNodeAndReleasedEverywhereOnceOnTheOrigin() throws Exception {
    try (TestingCluster cluster = start()) {
      byte[] body = bytes(5 * CELL + 123, 1);
      String etag = cluster.clients.get(0).putObject(b -> b.bucket(BUCKET).key("wb/a").contentType("text/x-test"),
          RequestBody.fromBytes(body)).eTag();

      assertThat(etag).isEqualTo(md5(body));
      assertThat(onOrigin("wb/a")).as("not on the origin yet").isFalse();
      for (int i = 0; i < 3; i++) {
        assertThat(fragmentFiles(i)).as("node-%d holds one fragment", i).isEqualTo(1);
      }
      for (int i : new int[] {1, 2}) {
        assertThat(cluster.get(i, "wb/a")).as("GET through node-%d", i).isEqualTo(body);
        HeadObjectResponse head = cluster.clients.get(i).headObject(b -> b.bucket(BUCKET).key("wb/a"));
        assertThat(head.eTag()).isEqualTo(etag);
        assertThat(head.contentLength()).isEqualTo(body.length);
        assertThat(head.contentType()).isEqualTo("text/x-test");
        assertThat(cluster.getRange(i, "wb/a", 70_000, 200_000)).isEqualTo(Arrays.copyOfRange(body, 70_000, 200_001));
        assertThat(cluster.clients.get(i).listObjectsV2(b -> b.bucket(BUCKET).prefix("wb/")).contents())
            .extracting(S3Object::key).containsExactly("wb/a");
      }

      assertThat(cluster.nodes.get(0).writeBack().propagate().propagated()).isEqualTo(1);
      assertThat(Files.readAllBytes(originFile("wb/a"))).isEqualTo(body);
      for (int i = 0; i < 3; i++) {
        assertThat(fragmentFiles(i)).as("node-%d released its fragment", i).isZero();
      }
      assertThat(cluster.clients.get(2).headObject(b -> b.bucket(BUCKET).key("wb/a")).eTag()).isEqualTo(etag);
    }
  }

  @Test
  void aKilledFragmentNodeLeavesTheWriteReadableAndItIsStillPropagated() throws Exception {
    try (TestingCluster cluster = start()) {
      byte[] body = bytes(3 * CELL + 5, 2);
      cluster.put(0, "wb/b", body);
      kill(cluster, 2);

      assertThat(cluster.get(1, "wb/b")).isEqualTo(body);
      Scrubber.Report scrub = cluster.nodes.get(0).writeBack().scrub();
      assertThat(scrub.lost()).as("node-2's fragment").isEqualTo(1);
      assertThat(scrub.unrepairable()).isZero();
      assertThat(cluster.nodes.get(0).writeBack().propagate().propagated()).isEqualTo(1);
      assertThat(Files.readAllBytes(originFile("wb/b"))).isEqualTo(body);
      assertThat(fragmentFiles(0) + fragmentFiles(1)).isZero();

      cluster.restartNode(2); // it missed the clean mark: its copy of the record is stale
      cluster.awaitMembers(3);
      CacheNode back = cluster.nodes.get(2);
      assertThat(back.writeBack().reconcile(Duration.ZERO)).as("stale copies dropped").isEqualTo(1);
      assertThat(cluster.get(2, "wb/b")).isEqualTo(body);
    }
  }

  @Test
  void aCoordinatorWhoseDiskWasWipedTakesItsWritesBackFromThePeersAndLosesNothing() throws Exception {
    try (TestingCluster cluster = start()) {
      byte[] first = bytes(4 * CELL, 3);
      byte[] second = bytes(CELL / 3, 4);
      cluster.put(0, "wb/c", first);
      cluster.put(0, "wb/d", second);
      CacheNode coordinator = restartWiped(cluster);
      assertThat(coordinator.writeBack().recover()).as("records taken back").isEqualTo(2);
      assertThat(cluster.get(0, "wb/c")).isEqualTo(first);
      Scrubber.Report scrub = coordinator.writeBack().scrub();
      assertThat(scrub.repaired()).as("the wiped fragments rebuilt onto node-0").isEqualTo(2);
      assertThat(fragmentFiles(0)).isEqualTo(2);

      assertThat(coordinator.writeBack().propagate().propagated()).isEqualTo(2);
      assertThat(Files.readAllBytes(originFile("wb/c"))).isEqualTo(first);
      assertThat(Files.readAllBytes(originFile("wb/d"))).isEqualTo(second);
      for (int i = 0; i < 3; i++) {
        assertThat(fragmentFiles(i)).as("node-%d released", i).isZero();
      }
      assertThat(coordinator.writeBack().stats().dirtyObjects()).isZero();
    }
  }

  @Test
  void aRecoveredChangeOfAKeyWrittenAtTheOriginSinceTheRestartIsRetiredNotApplied() throws Exception {
    try (TestingCluster cluster = start()) {
      byte[] buffered = bytes(2 * CELL, 5);
      byte[] untouched = bytes(CELL + 7, 6);
      cluster.put(0, "wb/e", buffered);
      cluster.clients.get(0).deleteObject(b -> b.bucket(BUCKET).key("wb/e")); // journaled after the write
      cluster.put(0, "wb/f", buffered);
      cluster.put(0, "wb/g", untouched);
      CacheNode coordinator = restartWiped(cluster);
      byte[] newer = bytes(1000, 7);
      Files.createDirectories(originFile("wb/e").getParent());
      Files.write(originFile("wb/e"), newer); // written outside the cache since the restart
      Files.write(originFile("wb/f"), newer);
      assertThat(coordinator.writeBack().recover()).as("only wb/g's write adopted").isEqualTo(1);
      assertThat(coordinator.writeBack().propagate().propagated()).isEqualTo(1);

      assertThat(Files.readAllBytes(originFile("wb/e"))).as("not deleted by the recovered delete").isEqualTo(newer);
      assertThat(Files.readAllBytes(originFile("wb/f"))).as("not overwritten by the recovered write").isEqualTo(newer);
      assertThat(Files.readAllBytes(originFile("wb/g"))).isEqualTo(untouched);
      for (int i = 0; i < 3; i++) {
        assertThat(fragmentFiles(i)).as("node-%d released the retired writes' fragments", i).isZero();
      }
      assertThat(coordinator.writeBack().stats().dirtyObjects()).isZero();
      assertThat(cluster.get(1, "wb/e")).as("no copy left on node-1 hides the origin").isEqualTo(newer);
    }
  }

  /** Node 0 killed, its write-back directory wiped, and restarted into the cluster. */
  private CacheNode restartWiped(TestingCluster cluster) throws IOException {
    kill(cluster, 0);
    deleteTree(buffers.resolve("node-0"));
    cluster.restartNode(0);
    cluster.awaitMembers(3);
    return cluster.nodes.get(0);
  }

  private static void kill(TestingCluster cluster, int index) {
    CacheNode node = cluster.nodes.get(index);
    node.cluster().halt();
    node.close();
    for (int i = 0; i < cluster.nodes.size(); i++) {
      if (i != index) {
        CacheNode survivor = cluster.nodes.get(i);
        Eventually.await("a view of 2 members at node-" + i, () -> survivor.cluster().view().members().size() == 2);
      }
    }
  }

  private long fragmentFiles(int node) throws IOException {
    Path dir = buffers.resolve("node-" + node).resolve("fragments");
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".frag")).count();
    }
  }

  private boolean onOrigin(String key) {
    return Files.exists(originFile(key));
  }

  private Path originFile(String key) {
    return root.resolve(BUCKET).resolve(key);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static String md5(byte[] body) throws Exception {
    return '"' + HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body)) + '"';
  }
}
