package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.CacheNode;
import io.verglas.cache.CacheStats;
import io.verglas.cache.TestingClock;
import io.verglas.cache.origin.Origin;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One compatibility spec, run for every kind of origin (a subclass per origin): the AWS SDK v2
 * S3 clients, sync and async, against a cache node in front of that origin. One node per class
 * (client and server start-up dominate otherwise); tests use disjoint keys.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class S3CompatibilitySpec {
  static final String ACCESS_KEY = "compat-client";
  static final String SECRET_KEY = "compat-client-secret";
  static final String BUCKET = "compat";
  static final int MIB = CacheNode.MIB;

  protected final TestingClock clock = new TestingClock();
  protected CacheNode node;
  protected Origin origin;
  protected S3Client s3;
  protected S3AsyncClient async;

  /** A fresh origin with no buckets. */
  protected abstract Origin newOrigin() throws Exception;

  protected void stopOrigin() throws Exception {}

  /** Whether ListParts of an aborted upload answers NoSuchUpload (s3proxy's transient store does not). */
  protected boolean forgetsAbortedUploads() {
    return true;
  }

  @BeforeAll
  void start() throws Exception {
    origin = newOrigin();
    node = CacheNode.builder().credentials(ACCESS_KEY, SECRET_KEY).origin(origin).clock(clock)
        .blockSize(MIB).dramCapacityBytes(16L * MIB).metadataTtl(Duration.ofSeconds(30)).build().start();
    var credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY));
    s3 = S3Client.builder().endpointOverride(node.endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
        .credentialsProvider(credentials).httpClient(ApacheHttpClient.create()).build();
    async = S3AsyncClient.builder().endpointOverride(node.endpoint()).forcePathStyle(true)
        .region(Region.US_EAST_1).credentialsProvider(credentials).build();
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  void stop() throws Exception {
    s3.close();
    async.close();
    node.close();
    origin.close();
    stopOrigin();
  }

  static byte[] bytes(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void putGetHeadAndRangesWithTheSyncClient() {
    byte[] content = bytes(5 * MIB + 17, 1);
    s3.putObject(b -> b.bucket(BUCKET).key("db/t/data/f.parquet").contentType("application/x-parquet")
        .metadata(Map.of("writer", "compat")), RequestBody.fromBytes(content));
    var head = s3.headObject(b -> b.bucket(BUCKET).key("db/t/data/f.parquet"));
    assertThat(head.contentLength()).isEqualTo(content.length);
    assertThat(head.contentType()).isEqualTo("application/x-parquet");
    assertThat(head.metadata()).containsEntry("writer", "compat");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("db/t/data/f.parquet")).asByteArray()).isEqualTo(content);
    // A range across a block boundary, twice (the second from cache).
    for (int i = 0; i < 2; i++) {
      byte[] range = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("db/t/data/f.parquet")
          .range("bytes=" + (MIB - 10) + "-" + (2 * MIB + 9))).asByteArray();
      assertThat(range).isEqualTo(Arrays.copyOfRange(content, MIB - 10, 2 * MIB + 10));
    }
    assertThat(node.stats().hits()).isPositive();
    assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("missing")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
  }

  @Test
  void theAsyncClientReadsAndWrites() {
    byte[] content = bytes(3 * MIB + 5, 2);
    async.putObject(b -> b.bucket(BUCKET).key("async/obj"), AsyncRequestBody.fromBytes(content)).join();
    List<CompletableFuture<byte[]>> reads = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      int from = i * 300_000;
      reads.add(async.getObject(b -> b.bucket(BUCKET).key("async/obj").range("bytes=" + from + "-" + (from + 99_999)),
          AsyncResponseTransformer.toBytes()).thenApply(r -> r.asByteArray()));
    }
    for (int i = 0; i < reads.size(); i++) {
      int from = i * 300_000;
      assertThat(reads.get(i).join()).isEqualTo(Arrays.copyOfRange(content, from, from + 100_000));
    }
    assertThat(async.getObject(b -> b.bucket(BUCKET).key("async/obj"), AsyncResponseTransformer.toBytes())
        .join().asByteArray()).isEqualTo(content);
    async.deleteObject(b -> b.bucket(BUCKET).key("async/obj")).join();
    assertThatThrownBy(() -> async.headObject(b -> b.bucket(BUCKET).key("async/obj")).join())
        .hasCauseInstanceOf(S3Exception.class);
  }

  @Test
  void listingsWithPrefixDelimiterAndPages() {
    for (String key : new String[] {"l/a/1", "l/a/2", "l/b/1", "l/c", "l/d", "other"}) {
      s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString(key));
    }
    ListObjectsV2Response top = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("l/").delimiter("/"));
    assertThat(top.contents()).extracting(S3Object::key).containsExactly("l/c", "l/d");
    assertThat(top.commonPrefixes()).extracting(p -> p.prefix()).containsExactly("l/a/", "l/b/");
    List<String> paged = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix("l/").maxKeys(2))
        .contents().forEach(o -> paged.add(o.key()));
    assertThat(paged).containsExactly("l/a/1", "l/a/2", "l/b/1", "l/c", "l/d");
    for (String key : new String[] {"l/a/1", "l/a/2", "l/b/1", "l/c", "l/d", "other"}) {
      s3.deleteObject(b -> b.bucket(BUCKET).key(key));
    }
  }

  @Test
  void copyDeleteAndDeleteObjects() {
    s3.putObject(b -> b.bucket(BUCKET).key("src").metadata(Map.of("a", "1")), RequestBody.fromString("payload"));
    s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("src").destinationBucket(BUCKET).destinationKey("dst"));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("dst")).asUtf8String()).isEqualTo("payload");
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key("dst")).metadata()).containsEntry("a", "1");
    s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("src").destinationBucket(BUCKET).destinationKey("dst2")
        .metadataDirective("REPLACE").metadata(Map.of("b", "2")));
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key("dst2")).metadata()).containsEntry("b", "2").doesNotContainKey("a");
    s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.objects(o -> o.key("dst"), o -> o.key("dst2"))));
    s3.deleteObject(b -> b.bucket(BUCKET).key("src"));
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("src")).contents()).isEmpty();
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("dst")).contents()).isEmpty();
  }

  @Test
  void multipartUploadWithTheSyncClient() {
    byte[] part1 = bytes(5 * MIB, 3);
    byte[] part2 = bytes(1234, 4);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key("mp")).uploadId();
    String e1 = s3.uploadPart(b -> b.bucket(BUCKET).key("mp").uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(part1)).eTag();
    String e2 = s3.uploadPart(b -> b.bucket(BUCKET).key("mp").uploadId(uploadId).partNumber(2),
        RequestBody.fromBytes(part2)).eTag();
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key("mp").uploadId(uploadId)).parts())
        .extracting(p -> p.partNumber()).containsExactly(1, 2);
    assertThat(s3.listMultipartUploads(b -> b.bucket(BUCKET).prefix("mp")).uploads())
        .extracting(u -> u.key() + " " + u.uploadId()).containsExactly("mp " + uploadId);
    s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("mp").uploadId(uploadId).multipartUpload(m -> m.parts(
        CompletedPart.builder().partNumber(1).eTag(e1).build(), CompletedPart.builder().partNumber(2).eTag(e2).build())));
    byte[] all = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("mp")).asByteArray();
    assertThat(all.length).isEqualTo(part1.length + part2.length);
    assertThat(Arrays.copyOfRange(all, 0, part1.length)).isEqualTo(part1);
    assertThat(Arrays.copyOfRange(all, part1.length, all.length)).isEqualTo(part2);

    String aborted = s3.createMultipartUpload(b -> b.bucket(BUCKET).key("mp2")).uploadId();
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key("mp2").uploadId(aborted));
    if (!forgetsAbortedUploads()) {
      return;
    }
    assertThatThrownBy(() -> s3.listParts(b -> b.bucket(BUCKET).key("mp2").uploadId(aborted)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
  }

  @Test
  void overwritesAreSeenAndMutableObjectsRevalidate() {
    String key = "db/t/metadata/version-hint.text";
    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("1"));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String()).isEqualTo("1");
    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("2"));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String()).isEqualTo("2");
    CacheStats before = node.stats();
    clock.shift(Duration.ofMinutes(1));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asString(StandardCharsets.UTF_8)).isEqualTo("2");
    CacheStats after = node.stats();
    assertThat(after.revalidations() - before.revalidations()).isEqualTo(1);
    assertThat(after.revalidationsNotModified() - before.revalidationsNotModified()).isEqualTo(1);
  }

  @Test
  void conditionalWrites() {
    s3.putObject(b -> b.bucket(BUCKET).key("c").ifNoneMatch("*"), RequestBody.fromString("first"));
    assertThatThrownBy(() -> s3.putObject(b -> b.bucket(BUCKET).key("c").ifNoneMatch("*"), RequestBody.fromString("second")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isIn(409, 412));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("c")).asUtf8String()).isEqualTo("first");
    String etag = s3.headObject(b -> b.bucket(BUCKET).key("c")).eTag();
    s3.putObject(b -> b.bucket(BUCKET).key("c").ifMatch(etag), RequestBody.fromString("third"));
    assertThatThrownBy(() -> s3.putObject(b -> b.bucket(BUCKET).key("c").ifMatch(etag), RequestBody.fromString("fourth")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("c")).asUtf8String()).isEqualTo("third");
  }
}
