package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.protection.OriginProtection;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** A failing origin seen from S3 clients: 503s, an open breaker, and cached bytes still served. */
class OriginProtectionBehaviorTest {
  @TempDir Path dir;
  private TestingCountingOrigin counting;

  @Test
  void whileTheOriginIsDownCachedObjectsAreStillServed() {
    OriginProtection protection = OriginProtection.builder().maxAttempts(2)
        .backoff(Duration.ZERO, Duration.ZERO).slidingWindow(4, 4).openDuration(Duration.ofMinutes(1)).build();
    try (TestingCacheNode t = new TestingCacheNode(dir, o -> counting = new TestingCountingOrigin(o),
        b -> b.originProtection(protection).metadataTtl(Duration.ofHours(1)))) {
      String hot = "db/t/data/hot.parquet";
      t.s3.putObject(b -> b.bucket(BUCKET).key(hot), RequestBody.fromString("hot"));
      t.s3.putObject(b -> b.bucket(BUCKET).key("cold.bin"), RequestBody.fromString("cold"));
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(hot)).asUtf8String()).isEqualTo("hot");

      counting.down = true;
      try (var client = t.apacheClient()) {
        for (int i = 0; i < 2; i++) {
          assertThatThrownBy(() -> client.getObjectAsBytes(b -> b.bucket(BUCKET).key("cold.bin")))
              .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(503));
        }
      }
      CacheStats stats = t.node.stats();
      assertThat(stats.origin().circuitState()).isEqualTo("OPEN");
      assertThat(stats.origin().retries()).isPositive(); // (the SDK client retries 503s too)
      assertThat(stats.origin().failures()).isPositive();
      assertThat(t.node.health().get("status")).isEqualTo("degraded");
      int asked = counting.heads.get();
      // Fails fast without asking the origin, and the hot object is still served from cache.
      assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("cold.bin")))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ServiceUnavailable"));
      assertThat(counting.heads.get()).isEqualTo(asked);
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(hot)).asUtf8String()).isEqualTo("hot");
    }
  }
}
