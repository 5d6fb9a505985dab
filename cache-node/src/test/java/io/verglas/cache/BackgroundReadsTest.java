package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Reads signed with a background access key (compaction, maintenance) are served like any read
 * but leave the cache as they found it: nothing admitted, what is cached still used.
 */
class BackgroundReadsTest {
  private static final int MIB = CacheNode.MIB;
  private static final String JOB_KEY = "verglas-maintenance";
  private static final String JOB_SECRET = "verglas-maintenance-secret";

  @TempDir Path dir;

  @Test
  void aBackgroundReadAdmitsNothingButIsServedFromWhatIsCached() {
    try (TestingCacheNode t = new TestingCacheNode(dir, o -> o,
        b -> b.blockSize(MIB).metadataTtl(Duration.ofMinutes(5)).backgroundCredentials(JOB_KEY, JOB_SECRET))) {
      byte[] content = S3ObjectOperationsTest.randomBytes(3 * MIB, 11);
      t.s3.putObject(b -> b.bucket(BUCKET).key("part-0.parquet"), RequestBody.fromBytes(content));
      S3Client job = t.client(JOB_KEY, JOB_SECRET);

      assertThat(job.getObjectAsBytes(b -> b.bucket(BUCKET).key("part-0.parquet")).asByteArray())
          .isEqualTo(content);
      CacheStats afterJob = t.node.stats();
      assertThat(afterJob.backgroundMisses()).as("every block loaded without admission").isEqualTo(3);
      assertThat(afterJob.dram().entries()).as("nothing admitted to DRAM").isZero();

      byte[] client = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("part-0.parquet")).asByteArray();
      assertThat(client).isEqualTo(content);
      CacheStats afterClient = t.node.stats();
      assertThat(afterClient.misses() - afterJob.misses()).as("the client's read found nothing cached").isEqualTo(3);
      assertThat(afterClient.dram().entries()).as("a client's read is admitted").isEqualTo(3);

      assertThat(job.getObjectAsBytes(b -> b.bucket(BUCKET).key("part-0.parquet")).asByteArray())
          .isEqualTo(content);
      CacheStats afterSecondJob = t.node.stats();
      assertThat(afterSecondJob.hits() - afterClient.hits()).as("the job is served from the cache").isEqualTo(3);
      assertThat(afterSecondJob.originRequests()).isEqualTo(afterClient.originRequests());
      assertThat(afterSecondJob.backgroundMisses()).isEqualTo(3);
    }
  }

  @Test
  void aBackgroundReadOfTableMetadataStoresNothingButIsServedFromTheMetadataStore() {
    try (TestingCacheNode t = new TestingCacheNode(dir, o -> o, b -> b.backgroundCredentials(JOB_KEY, JOB_SECRET))) {
      String key = "db/t/metadata/snap-1-1-0b2c.avro";
      byte[] content = S3ObjectOperationsTest.randomBytes(40_000, 12);
      t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(content));
      S3Client job = t.client(JOB_KEY, JOB_SECRET);

      assertThat(job.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(content);
      assertThat(t.node.stats().metadata().entries()).as("the job's read stored nothing").isZero();

      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(content);
      CacheStats afterClient = t.node.stats();
      assertThat(afterClient.metadata().entries()).as("a client's read is stored").isEqualTo(1);

      assertThat(job.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(content);
      CacheStats afterJob = t.node.stats();
      assertThat(afterJob.metadata().hits() - afterClient.metadata().hits()).as("the job is served from it").isEqualTo(1);
      assertThat(afterJob.originRequests()).isEqualTo(afterClient.originRequests());
    }
  }

  @Test
  void aBackgroundKeyNeedsItsSecretLikeAnyOther() {
    try (TestingCacheNode t = new TestingCacheNode(dir, o -> o, b -> b.backgroundCredentials(JOB_KEY, JOB_SECRET))) {
      t.s3.putObject(b -> b.bucket(BUCKET).key("k"), RequestBody.fromString("v"));
      S3Client wrong = t.client(JOB_KEY, "not-the-secret");
      assertThatThrownBy(() -> wrong.getObjectAsBytes(b -> b.bucket(BUCKET).key("k")))
          .hasMessageContaining("signature we calculated does not match");
      assertThat(t.client(JOB_KEY, JOB_SECRET).getObjectAsBytes(b -> b.bucket(BUCKET).key("k")).asUtf8String())
          .isEqualTo("v");
    }
  }
}
