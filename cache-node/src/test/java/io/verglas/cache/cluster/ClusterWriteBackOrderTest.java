package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.Propagator;
import io.verglas.cache.writeback.WriteBackStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Changes of one key acknowledged by different coordinators (three nodes in one JVM, k=2, m=1,
 * w=3, propagation only when a test asks a node for a pass): the origin ends with the change
 * acknowledged last whichever coordinator propagates first, and a conditional write through one
 * node sees another node's buffered change.
 */
class ClusterWriteBackOrderTest {
  private static final int CELL = 16 * 1024;
  private static final String BUCKET = TestingCluster.BUCKET;
  private static final String KEY = "wb/k";

  @TempDir
  Path root;
  @TempDir
  Path buffers;

  @Test
  void theLaterPutThroughAnotherNodeWinsWhenTheEarlierCoordinatorPropagatesLast() throws Exception {
    try (TestingCluster cluster = TestingCluster.withWriteBack(root, buffers, CELL)) {
      byte[] older = bytes(3 * CELL + 7, 1);
      byte[] newer = bytes(2 * CELL + 3, 2);
      cluster.put(0, KEY, older);
      cluster.put(1, KEY, newer);
      assertThat(cluster.get(2, KEY)).isEqualTo(newer);
      assertThat(cluster.get(0, KEY)).as("the coordinator of the older write serves the newer").isEqualTo(newer);

      assertThat(propagate(cluster, 1)).as("node-1 waits for node-0's older write")
          .isEqualTo(new Propagator.Pass(0, 0, 1, 0, null));
      assertThat(onOrigin()).isFalse();
      assertThat(propagate(cluster, 0)).as("node-0 retires its write unwritten")
          .isEqualTo(new Propagator.Pass(0, 1, 0, 0, null));
      assertThat(onOrigin()).isFalse();
      assertThat(propagate(cluster, 1)).isEqualTo(new Propagator.Pass(1, 0, 0, 0, null));

      assertThat(Files.readAllBytes(originFile())).isEqualTo(newer);
      assertThat(cluster.origins.get(0).putsByKey.get(KEY)).as("node-0 never wrote its older body").isNull();
      assertThat(stats(cluster, 0).propagationsSuperseded()).isEqualTo(1);
      assertThat(stats(cluster, 1).propagationsDeferred()).isEqualTo(1);
      assertAllClean(cluster);
      assertThat(cluster.get(0, KEY)).isEqualTo(newer);
    }
  }

  @Test
  void aDeleteThroughAnotherNodeAfterABufferedPutLeavesTheKeyDeleted() throws Exception {
    try (TestingCluster cluster = TestingCluster.withWriteBack(root, buffers, CELL)) {
      cluster.put(0, KEY, bytes(CELL, 3));
      propagate(cluster, 0);
      assertThat(onOrigin()).isTrue();
      cluster.put(0, KEY, bytes(2 * CELL, 4));
      cluster.clients.get(1).deleteObject(b -> b.bucket(BUCKET).key(KEY));
      assertThatThrownBy(() -> cluster.get(2, KEY)).isInstanceOf(NoSuchKeyException.class);

      assertThat(propagate(cluster, 1).deferred()).isEqualTo(1);
      assertThat(propagate(cluster, 0).superseded()).isEqualTo(1);
      assertThat(onOrigin()).as("the first write is still there, the buffered one was never written").isTrue();
      assertThat(propagate(cluster, 1).propagated()).isEqualTo(1);

      assertThat(onOrigin()).isFalse();
      assertAllClean(cluster);
      assertThatThrownBy(() -> cluster.get(0, KEY)).isInstanceOf(NoSuchKeyException.class);
    }
  }

  @Test
  void aConditionalPutThroughOneNodeSeesAnotherNodesBufferedChange() throws Exception {
    try (TestingCluster cluster = TestingCluster.withWriteBack(root, buffers, CELL)) {
      String buffered = cluster.clients.get(0).putObject(b -> b.bucket(BUCKET).key(KEY),
          RequestBody.fromBytes(bytes(CELL, 5))).eTag();

      assertThat(status(() -> conditionalPut(cluster, 1, "*", null, bytes(10, 6))))
          .as("If-None-Match: * against node-0's buffered write").isEqualTo(412);
      assertThat(status(() -> conditionalPut(cluster, 1, null, "\"0123456789abcdef0123456789abcdef\"",
          bytes(10, 6)))).as("If-Match of another ETag").isEqualTo(412);
      assertThat(onOrigin()).isFalse();

      byte[] replacement = bytes(CELL + 1, 7);
      conditionalPut(cluster, 1, null, buffered, replacement);
      assertThat(cluster.get(2, KEY)).isEqualTo(replacement);
      assertThat(onOrigin()).as("staged like an unconditional PUT").isFalse();

      cluster.clients.get(2).deleteObject(b -> b.bucket(BUCKET).key(KEY));
      assertThat(status(() -> conditionalPut(cluster, 1, null, buffered, bytes(10, 8))))
          .as("If-Match against a buffered delete").isEqualTo(404);
      byte[] created = bytes(CELL / 2, 9);
      conditionalPut(cluster, 0, "*", null, created);
      assertThat(cluster.get(1, KEY)).isEqualTo(created);

      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 3; i++) {
          propagate(cluster, i);
        }
      }
      assertThat(Files.readAllBytes(originFile())).isEqualTo(created);
      assertAllClean(cluster);
    }
  }

  private static void conditionalPut(TestingCluster cluster, int node, String ifNoneMatch, String ifMatch,
      byte[] body) {
    cluster.clients.get(node).putObject(b -> b.bucket(BUCKET).key(KEY).ifNoneMatch(ifNoneMatch).ifMatch(ifMatch),
        RequestBody.fromBytes(body));
  }

  private static int status(Runnable request) {
    try {
      request.run();
      return 200;
    } catch (S3Exception e) {
      return e.statusCode();
    }
  }

  private static Propagator.Pass propagate(TestingCluster cluster, int node) throws IOException {
    return cluster.nodes.get(node).writeBack().propagate();
  }

  private static WriteBackStats stats(TestingCluster cluster, int node) {
    return cluster.nodes.get(node).writeBack().stats();
  }

  private void assertAllClean(TestingCluster cluster) throws IOException {
    for (int i = 0; i < 3; i++) {
      assertThat(stats(cluster, i).dirtyObjects()).as("node-%d dirty", i).isZero();
      Path fragments = buffers.resolve("node-" + i).resolve("fragments");
      try (Stream<Path> files = Files.list(fragments)) {
        assertThat(files.filter(f -> f.toString().endsWith(".frag"))).as("node-%d fragments", i).isEmpty();
      }
    }
  }

  private boolean onOrigin() {
    return Files.exists(originFile());
  }

  private Path originFile() {
    return root.resolve(BUCKET).resolve(KEY);
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }
}
