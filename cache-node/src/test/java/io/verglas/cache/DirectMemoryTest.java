package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.block.BlockCache;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * DRAM blocks are reference-counted direct buffers: whatever readers do (finish, give up half
 * way, race evictions), the direct memory held comes back to exactly what the tier holds, and to
 * zero once the node is closed.
 */
class DirectMemoryTest {
  private static final int MIB = CacheNode.MIB;
  @TempDir Path dir;

  @Test
  void abandonedAndCompletedReadsReleaseTheirBlocks() throws Exception {
    TestingCacheNode t = new TestingCacheNode(dir, o -> o,
        b -> b.blockSize(MIB).dramCapacityBytes(3L * MIB).metadataTtl(Duration.ofHours(1)).allowAnonymous(true));
    BlockCache blocks;
    try {
      for (int i = 0; i < 4; i++) {
        int n = i;
        t.s3.putObject(b -> b.bucket(BUCKET).key("big-" + n), RequestBody.fromBytes(S3ObjectOperationsTest.randomBytes(6 * MIB, n)));
      }
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      for (int round = 0; round < 6; round++) {
        for (int i = 0; i < 4; i++) {
          URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/big-" + i);
          if ((round + i) % 2 == 0) {
            // Read a little and hang up: the rest of the response is never written.
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
              in.readNBytes(100_000);
            }
          } else {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.body()).hasSize(6 * MIB);
          }
        }
      }
      blocks = blockCacheOf(t.node);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (blocks.directBytesInUse() != blocks.dramBytes() && System.nanoTime() < deadline) {
        Thread.sleep(20); // abandoned responses finish failing on the event loops
      }
      assertThat(blocks.directBytesInUse()).isEqualTo(blocks.dramBytes());
      assertThat(blocks.dramBytes()).isPositive().isLessThanOrEqualTo(3L * MIB);
    } finally {
      t.close();
    }
    assertThat(blocks.directBytesInUse()).isZero();
  }

  private static BlockCache blockCacheOf(CacheNode node) throws ReflectiveOperationException {
    var field = CacheNode.class.getDeclaredField("server");
    field.setAccessible(true);
    return ((io.verglas.cache.s3.S3Server) field.get(node)).blockCache();
  }
}
