package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Object operations through the AWS SDK v2 against a real node over a local directory. */
class S3ObjectOperationsTest {
  @TempDir Path dir;
  TestingCacheNode t;

  @BeforeEach
  void start() {
    t = new TestingCacheNode(dir, o -> o, b -> b.blockSize(CacheNode.MIB));
  }

  @AfterEach
  void stop() {
    t.close();
  }

  @Test
  void putGetHeadRoundTripContentAndMetadata() throws Exception {
    byte[] content = "hello, verglas".getBytes(StandardCharsets.UTF_8);
    PutObjectResponse put = t.s3.putObject(b -> b.bucket(BUCKET).key("dir/hello.txt")
        .contentType("text/plain").metadata(Map.of("owner", "ada")), RequestBody.fromBytes(content));
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
    assertThat(put.eTag()).isEqualTo('"' + md5 + '"');

    ResponseBytes<GetObjectResponse> got = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("dir/hello.txt"));
    assertThat(got.asByteArray()).isEqualTo(content);
    assertThat(got.response().eTag()).isEqualTo(put.eTag());
    assertThat(got.response().contentType()).isEqualTo("text/plain");
    assertThat(got.response().metadata()).containsEntry("owner", "ada");

    HeadObjectResponse head = t.s3.headObject(b -> b.bucket(BUCKET).key("dir/hello.txt"));
    assertThat(head.contentLength()).isEqualTo(content.length);
    assertThat(head.eTag()).isEqualTo(put.eTag());
    assertThat(head.metadata()).containsEntry("owner", "ada");
    // Stored as a plain file under the bucket directory.
    assertThat(Files.readAllBytes(dir.resolve(BUCKET).resolve("dir/hello.txt"))).isEqualTo(content);
  }

  @Test
  void emptyObject() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("empty"), RequestBody.empty());
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("empty")).asByteArray()).isEmpty();
  }

  @Test
  void rangedGetsOfAllThreeFormsAcrossBlocks() {
    byte[] content = randomBytes(3 * CacheNode.MIB + 12345, 7);
    t.s3.putObject(b -> b.bucket(BUCKET).key("big.bin"), RequestBody.fromBytes(content));
    int size = content.length;

    assertRange("bytes=0-99", content, 0, 99);
    assertRange("bytes=1048500-1048700", content, 1048500, 1048700); // crosses a block boundary
    assertRange("bytes=3145000-", content, 3145000, size - 1);
    assertRange("bytes=-100", content, size - 100, size - 1);
    assertRange("bytes=10-99999999", content, 10, size - 1);
    assertRange("bytes=-99999999", content, 0, size - 1);

    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("big.bin")
        .range("bytes=" + size + "-")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(416);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidRange");
        });
  }

  private void assertRange(String range, byte[] content, int first, int last) {
    ResponseBytes<GetObjectResponse> got =
        t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("big.bin").range(range));
    assertThat(got.response().contentRange())
        .isEqualTo("bytes " + first + "-" + last + "/" + content.length);
    assertThat(got.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(content, first, last + 1));
  }

  @Test
  void conditionalGet() {
    String etag = t.s3.putObject(b -> b.bucket(BUCKET).key("c"), RequestBody.fromString("v1")).eTag();
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("c").ifNoneMatch(etag)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(304));
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("c").ifMatch("\"nope\"")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(412);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("PreconditionFailed");
        });
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("c").ifMatch(etag)).asUtf8String())
        .isEqualTo("v1");
  }

  @Test
  void conditionalGetByDate() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("d"), RequestBody.fromString("dated"));
    java.time.Instant modified = t.s3.headObject(b -> b.bucket(BUCKET).key("d")).lastModified();
    java.time.Instant before = modified.minusSeconds(3600);
    java.time.Instant after = modified.plusSeconds(3600);
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d").ifModifiedSince(after)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(304));
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d").ifModifiedSince(modified)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(304));
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d").ifModifiedSince(before)).asUtf8String())
        .isEqualTo("dated");
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d").ifUnmodifiedSince(before)))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(412);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("PreconditionFailed");
        });
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d").ifUnmodifiedSince(after)).asUtf8String())
        .isEqualTo("dated");
    // An ETag condition takes precedence over the date (RFC 9110 13.2.2): If-Match holds, so
    // If-Unmodified-Since is not evaluated.
    String etag = t.s3.headObject(b -> b.bucket(BUCKET).key("d")).eTag();
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d").ifMatch(etag).ifUnmodifiedSince(before))
        .asUtf8String()).isEqualTo("dated");
  }

  @Test
  void conditionalPutIfNoneMatchStarAndIfMatch() {
    String etag = t.s3.putObject(b -> b.bucket(BUCKET).key("lock").ifNoneMatch("*"),
        RequestBody.fromString("first")).eTag();
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("lock").ifNoneMatch("*"),
        RequestBody.fromString("second")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(412);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("PreconditionFailed");
        });
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("lock").ifMatch("\"0000\""),
        RequestBody.fromString("third")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    t.s3.putObject(b -> b.bucket(BUCKET).key("lock").ifMatch(etag), RequestBody.fromString("fourth"));
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("lock")).asUtf8String()).isEqualTo("fourth");
  }

  @Test
  void deleteAndDeleteObjects() {
    for (String k : List.of("d/1", "d/2", "d/3")) {
      t.s3.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString(k));
    }
    t.s3.deleteObject(b -> b.bucket(BUCKET).key("d/1"));
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("d/1")))
        .isInstanceOf(NoSuchKeyException.class);
    t.s3.deleteObject(b -> b.bucket(BUCKET).key("d/never-existed")); // S3: deleting nothing succeeds

    DeleteObjectsResponse deleted = t.s3.deleteObjects(b -> b.bucket(BUCKET).delete(Delete.builder()
        .objects(ObjectIdentifier.builder().key("d/2").build(),
            ObjectIdentifier.builder().key("d/3").build(),
            ObjectIdentifier.builder().key("d/missing").build(),
            ObjectIdentifier.builder().key("d/../escape").build())
        .build()));
    assertThat(deleted.deleted()).extracting(d -> d.key()).containsExactly("d/2", "d/3", "d/missing");
    assertThat(deleted.errors()).singleElement().satisfies(e -> {
      assertThat(e.key()).isEqualTo("d/../escape");
      assertThat(e.code()).isEqualTo("InvalidArgument");
    });
    assertThat(t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("d/")).contents()).isEmpty();
    assertThat(Files.exists(dir.resolve(BUCKET).resolve("d"))).isFalse();
  }

  @Test
  void copyObjectCopiesContentAndMetadataOrReplacesIt() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("src").contentType("text/csv")
        .metadata(Map.of("k", "v")), RequestBody.fromString("a,b"));
    CopyObjectResponse copied = t.s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("src")
        .destinationBucket(BUCKET).destinationKey("copies/dst"));
    HeadObjectResponse head = t.s3.headObject(b -> b.bucket(BUCKET).key("copies/dst"));
    assertThat(head.eTag()).isEqualTo(copied.copyObjectResult().eTag());
    assertThat(head.contentType()).isEqualTo("text/csv");
    assertThat(head.metadata()).containsEntry("k", "v");

    t.s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("src").destinationBucket(BUCKET)
        .destinationKey("copies/replaced").metadataDirective(MetadataDirective.REPLACE)
        .contentType("application/json").metadata(Map.of("x", "y")));
    HeadObjectResponse replaced = t.s3.headObject(b -> b.bucket(BUCKET).key("copies/replaced"));
    assertThat(replaced.contentType()).isEqualTo("application/json");
    assertThat(replaced.metadata()).containsOnlyKeys("x");
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("copies/replaced")).asUtf8String())
        .isEqualTo("a,b");

    assertThatThrownBy(() -> t.s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("src")
        .destinationBucket(BUCKET).destinationKey("copies/x").copySourceIfMatch("\"other\"")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThatThrownBy(() -> t.s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("nothing")
        .destinationBucket(BUCKET).destinationKey("copies/y")))
        .isInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void asyncClientPutAndGet() throws Exception {
    byte[] content = randomBytes(300_000, 3);
    try (S3AsyncClient async = t.asyncClient()) {
      async.putObject(b -> b.bucket(BUCKET).key("async/obj"), AsyncRequestBody.fromBytes(content)).get();
      byte[] got = async.getObject(b -> b.bucket(BUCKET).key("async/obj"),
          AsyncResponseTransformer.toBytes()).get().asByteArray();
      assertThat(got).isEqualTo(content);
    }
  }

  @Test
  void apacheClientWithExpectContinue() {
    byte[] content = randomBytes(2 * CacheNode.MIB + 5, 11);
    try (var apache = t.apacheClient()) {
      apache.putObject(b -> b.bucket(BUCKET).key("apache"), RequestBody.fromBytes(content));
      assertThat(apache.getObjectAsBytes(b -> b.bucket(BUCKET).key("apache")).asByteArray()).isEqualTo(content);
    }
  }

  @Test
  void wrongChecksumIsBadDigest() {
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("bad")
        .checksumCRC32("AAAAAA=="), RequestBody.fromString("not empty")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(400);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
        });
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("bad")
        .contentMD5("1B2M2Y8AsgTpgAmY7PhCfg=="), RequestBody.fromString("not empty")))
        .isInstanceOfSatisfying(S3Exception.class, e ->
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest"));
    assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(BUCKET).key("bad")))
        .isInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void keysWithDotDotSegmentsAreRejected() {
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("a/../../escape"),
        RequestBody.fromString("x")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(400));
    assertThat(Files.exists(dir.resolve("escape"))).isFalse();
    assertThat(Files.exists(dir.resolve(BUCKET).resolve("escape"))).isFalse();
  }

  @Test
  void missingThingsAre404() {
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("nope")))
        .isInstanceOf(NoSuchKeyException.class);
    assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(BUCKET).key("nope")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket("no-bucket").key("k")))
        .isInstanceOf(NoSuchBucketException.class);
    assertThatThrownBy(() -> t.s3.headBucket(b -> b.bucket("no-bucket")))
        .isInstanceOf(NoSuchBucketException.class);
    t.s3.headBucket(b -> b.bucket(BUCKET));
    assertThat(t.s3.listBuckets().buckets()).extracting(b -> b.name()).containsExactly(BUCKET);
  }

  @Test
  void listObjectVersionsAnswersCurrentObjectsWithNullVersion() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("v/1"), RequestBody.fromString("1"));
    t.s3.putObject(b -> b.bucket(BUCKET).key("v/2"), RequestBody.fromString("2"));
    List<ObjectVersion> versions = t.s3.listObjectVersions(b -> b.bucket(BUCKET)).versions();
    assertThat(versions).extracting(ObjectVersion::key).containsExactly("v/1", "v/2");
    assertThat(versions).allSatisfy(v -> {
      assertThat(v.versionId()).isEqualTo("null");
      assertThat(v.isLatest()).isTrue();
    });
    // What bucket-emptying clients then do: delete each version, then the bucket.
    for (ObjectVersion v : versions) {
      t.s3.deleteObject(b -> b.bucket(BUCKET).key(v.key()).versionId(v.versionId()));
    }
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("v/1")))
        .isInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void versionedRequestsGoToTheOriginAndOnlyNullIsKnown() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("ver"), RequestBody.fromString("current"));
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("ver").versionId("null")).asUtf8String())
        .isEqualTo("current");
    long hits = t.node.stats().hits() + t.node.stats().misses();
    assertThat(hits).isZero(); // the block cache was not involved
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("ver").versionId("3HL4kqtJlcpXroDTDmJ")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(400);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
        });
  }

  @Test
  void unsupportedOperationsAreNotImplemented() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("t"), RequestBody.fromString("x"));
    assertThatThrownBy(() -> t.s3.getObjectTagging(b -> b.bucket(BUCKET).key("t")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(501);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NotImplemented");
        });
    assertThatThrownBy(() -> t.s3.getBucketPolicy(b -> b.bucket(BUCKET)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(501));
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("t").tagging("a=b"),
        RequestBody.fromString("y")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(501));
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("t")).asUtf8String()).isEqualTo("x");
  }

  @Test
  void catalogPathAnswers501WithJsonWhenNoCatalogIsConfigured() throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(t.node.endpoint() + "/catalog/v1/config")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(501);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"Cannot serve /catalog: this cache node"
        + " has no catalog endpoint configured\",\"type\":\"NotImplementedException\",\"code\":501}}");
  }

  static byte[] randomBytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
