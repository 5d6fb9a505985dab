package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** Iceberg metadata and Parquet footers through the S3 endpoint: kept apart from data blocks. */
class MetadataStoreBehaviorTest {
  private static final int MIB = CacheNode.MIB;
  @TempDir Path dir;
  private TestingCountingOrigin counting;

  private TestingCacheNode node() {
    return new TestingCacheNode(dir, o -> counting = new TestingCountingOrigin(o),
        b -> b.blockSize(MIB).dramCapacityBytes(2L * MIB).metadataTtl(Duration.ofHours(1)));
  }

  private static byte[] get(TestingCacheNode t, String key, String range) {
    return t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range(range)).asByteArray();
  }

  @Test
  void metadataObjectsAreServedFromTheStore() {
    try (TestingCacheNode t = node()) {
      String key = "db/t/metadata/00001-a.metadata.json";
      byte[] json = S3ObjectOperationsTest.randomBytes(300_000, 1);
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(json));
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(json);
      assertThat(get(t, key, "bytes=1000-1999")).isEqualTo(Arrays.copyOfRange(json, 1000, 2000));
      assertThat(get(t, key, "bytes=-10")).isEqualTo(Arrays.copyOfRange(json, json.length - 10, json.length));
      CacheStats stats = t.node.stats();
      assertThat(stats.metadata().misses()).isEqualTo(1);
      assertThat(stats.metadata().hits()).isEqualTo(2);
      assertThat(stats.metadata().bytes()).isEqualTo(json.length);
      assertThat(stats.misses() + stats.hits()).as("no data blocks").isZero();
      assertThat(counting.rangeReads.get()).isEqualTo(1);
    }
  }

  @Test
  void parquetFootersAreFoundBySuffixReadsAndKeptApart() {
    try (TestingCacheNode t = node()) {
      String key = "db/t/data/00000-0-a.parquet";
      byte[] file = TestingParquet.file(3 * MIB, 100_000, 7);
      int footerLength = 100_008;
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(file));

      // A reader's footer dance: the trailer, then the footer body.
      assertThat(get(t, key, "bytes=-8")).isEqualTo(Arrays.copyOfRange(file, file.length - 8, file.length));
      assertThat(counting.rangeReads.get()).isEqualTo(2); // probe + the rest of the footer
      int start = file.length - footerLength;
      assertThat(get(t, key, "bytes=" + start + "-" + (file.length - 9)))
          .isEqualTo(Arrays.copyOfRange(file, start, file.length - 8));
      assertThat(counting.rangeReads.get()).isEqualTo(2);
      CacheStats stats = t.node.stats();
      assertThat(stats.metadata().fills()).isEqualTo(1);
      assertThat(stats.metadata().hits()).isEqualTo(1);
      assertThat(stats.misses()).as("no data blocks yet").isZero();

      // A column chunk is data: blocks.
      assertThat(get(t, key, "bytes=100-200")).isEqualTo(Arrays.copyOfRange(file, 100, 201));
      assertThat(t.node.stats().misses()).isEqualTo(1);
    }
  }

  @Test
  void aDataScanDoesNotEvictMetadata() {
    try (TestingCacheNode t = node()) {
      String manifest = "db/t/metadata/m0.avro";
      byte[] bytes = S3ObjectOperationsTest.randomBytes(50_000, 2);
      t.s3.putObject(b -> b.bucket(BUCKET).key(manifest), RequestBody.fromBytes(bytes));
      t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(manifest));
      for (int i = 0; i < 4; i++) {
        String data = "db/t/data/scan-" + i + ".bin";
        t.s3.putObject(b -> b.bucket(BUCKET).key(data), RequestBody.fromBytes(new byte[2 * MIB]));
        t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(data));
      }
      int before = counting.rangeReads.get();
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(manifest)).asByteArray()).isEqualTo(bytes);
      assertThat(counting.rangeReads.get()).isEqualTo(before);
      assertThat(t.node.stats().dramBytes()).isLessThanOrEqualTo(2L * MIB);
    }
  }

  @Test
  void aNewVersionOfAMetadataObjectIsANewEntry() {
    try (TestingCacheNode t = node()) {
      String key = "db/t/metadata/snap-1-1-a.avro";
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("one"));
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String()).isEqualTo("one");
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("two"));
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String()).isEqualTo("two");
    }
  }
}
