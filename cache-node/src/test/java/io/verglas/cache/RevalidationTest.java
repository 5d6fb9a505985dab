package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** Immutable objects are resolved once; others are revalidated with If-None-Match after the TTL. */
class RevalidationTest {
  @TempDir Path dir;
  private TestingCountingOrigin counting;

  private TestingCacheNode node(Duration ttl) {
    return new TestingCacheNode(dir, o -> counting = new TestingCountingOrigin(o),
        b -> b.metadataTtl(ttl));
  }

  private static String get(TestingCacheNode t, String key) {
    return t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asString(StandardCharsets.UTF_8);
  }

  private static void putAtOrigin(TestingCacheNode t, String key, String content) {
    t.localOrigin.put(BUCKET, key, ObjectBody.ofBytes(content.getBytes(StandardCharsets.UTF_8)),
        WriteOptions.DEFAULT).join();
  }

  @Test
  void mutableObjectsAreRevalidatedAfterTheTtl() {
    try (TestingCacheNode t = node(Duration.ofMinutes(1))) {
      String key = "db/t/metadata/version-hint.text";
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("1"));
      assertThat(get(t, key)).isEqualTo("1");
      assertThat(get(t, key)).isEqualTo("1");
      assertThat(counting.heads.get()).isEqualTo(1);
      assertThat(counting.revalidations.get()).isZero();

      t.clock.shift(Duration.ofMinutes(2));
      assertThat(get(t, key)).isEqualTo("1");
      assertThat(counting.revalidations.get()).isEqualTo(1);
      assertThat(t.node.stats().revalidationsNotModified()).isEqualTo(1);
      assertThat(counting.rangeReads.get()).isEqualTo(1); // the block is still good

      // Changed behind the node's back: visible once the TTL has run out again.
      putAtOrigin(t, key, "2");
      assertThat(get(t, key)).isEqualTo("1");
      t.clock.shift(Duration.ofMinutes(2));
      assertThat(get(t, key)).isEqualTo("2");
      assertThat(counting.revalidations.get()).isEqualTo(2);
      assertThat(t.node.stats().revalidations()).isEqualTo(2);
      assertThat(t.node.stats().revalidationsNotModified()).isEqualTo(1);
    }
  }

  @Test
  void aZeroTtlRevalidatesEveryRead() {
    try (TestingCacheNode t = node(Duration.ZERO)) {
      t.s3.putObject(b -> b.bucket(BUCKET).key("k"), RequestBody.fromString("a"));
      for (int i = 0; i < 3; i++) {
        assertThat(get(t, "k")).isEqualTo("a");
      }
      assertThat(counting.heads.get()).isEqualTo(1);
      assertThat(counting.revalidations.get()).isEqualTo(2);
      putAtOrigin(t, "k", "b");
      assertThat(get(t, "k")).isEqualTo("b");
    }
  }

  @Test
  void immutableIcebergFilesAreNeverRevalidated() {
    try (TestingCacheNode t = node(Duration.ZERO)) {
      String[] keys = {
        "db/t/data/part=1/00000-0-a.parquet", "db/t/metadata/00001-a.metadata.json",
        "db/t/metadata/snap-1-1-a.avro", "db/t/metadata/a-m0.avro", "db/t/data/a-deletes.puffin"
      };
      for (String key : keys) {
        t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString(key));
      }
      for (int round = 0; round < 3; round++) {
        for (String key : keys) {
          assertThat(get(t, key)).isEqualTo(key);
        }
        t.clock.shift(Duration.ofDays(1));
      }
      assertThat(counting.heads.get()).isEqualTo(keys.length);
      assertThat(counting.revalidations.get()).isZero();
      assertThat(counting.rangeReads.get()).isEqualTo(keys.length);
    }
  }

  @Test
  void aWriteThroughTheNodeIsSeenAtOnceEvenForImmutablePaths() {
    try (TestingCacheNode t = node(Duration.ofHours(1))) {
      String key = "db/t/data/x.parquet";
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("v1"));
      assertThat(get(t, key)).isEqualTo("v1");
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("v2"));
      assertThat(get(t, key)).isEqualTo("v2");
      t.s3.deleteObject(b -> b.bucket(BUCKET).key(key));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> get(t, key))
          .isInstanceOf(software.amazon.awssdk.services.s3.model.NoSuchKeyException.class);
    }
  }

  @Test
  void anImmutableObjectReplacedAtTheOriginIsRefetchedWhenItsBlocksAreGone() {
    // Not revalidated, but the If-Match block read notices the new version and the read retries.
    try (TestingCacheNode t = node(Duration.ofHours(1))) {
      String key = "db/t/data/y.parquet";
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("v1"));
      t.s3.headObject(b -> b.bucket(BUCKET).key(key));
      putAtOrigin(t, key, "v2");
      assertThat(get(t, key)).isEqualTo("v2");
    }
  }
}
