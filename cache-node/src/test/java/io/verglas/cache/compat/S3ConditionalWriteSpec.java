package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Conditional writes as S3 defines them since 2024, requests shaped as boto3 and the AWS SDKs
 * send them: status, error code and the resulting state, on every origin, plus races of
 * conditional writers through the endpoint (exactly one winner).
 */
abstract class S3ConditionalWriteSpec extends S3NodeFixture {
  S3ConditionalWriteSpec(OriginKind kind) {
    super(kind, "conditional");
  }

  @Test
  void putIfNoneMatchStarCreatesOnlyOnce() {
    s3.putObject(b -> b.bucket(bucket).key("inm/a").ifNoneMatch("*"), RequestBody.fromString("first"));
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("inm/a").ifNoneMatch("*"),
        RequestBody.fromString("second")), 412, "PreconditionFailed");
    assertThat(text("inm/a")).isEqualTo("first");
  }

  @Test
  void putIfMatchReplacesOnlyTheNamedVersion() {
    String first = put("im/a", "one");
    String second = s3.putObject(b -> b.bucket(bucket).key("im/a").ifMatch(first), RequestBody.fromString("two")).eTag();
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("im/a").ifMatch(first),
        RequestBody.fromString("three")), 412, "PreconditionFailed");
    assertThat(text("im/a")).isEqualTo("two");
    assertThat(etag("im/a")).isEqualTo(second);
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("im/missing").ifMatch(first),
        RequestBody.fromString("x")), 404, "NoSuchKey");
    assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("im/missing")).contents()).isEmpty();
  }

  @Test
  void putIfMatchStarNeedsAnExistingObject() {
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("ims/a").ifMatch("*"),
        RequestBody.fromString("x")), 404, "NoSuchKey");
    assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("ims/")).contents()).isEmpty();
    put("ims/a", "one");
    s3.putObject(b -> b.bucket(bucket).key("ims/a").ifMatch("*"), RequestBody.fromString("two"));
    assertThat(text("ims/a")).isEqualTo("two");
  }

  @Test
  void putIfNoneMatchEtagRefusesOnlyThatVersion() {
    s3.putObject(b -> b.bucket(bucket).key("inme/a").ifNoneMatch("\"0123456789abcdef0123456789abcdef\""),
        RequestBody.fromString("one"));
    String current = etag("inme/a");
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("inme/a").ifNoneMatch(current),
        RequestBody.fromString("two")), 412, "PreconditionFailed");
    assertThat(text("inme/a")).isEqualTo("one");
    s3.putObject(b -> b.bucket(bucket).key("inme/a").ifNoneMatch("\"0123456789abcdef0123456789abcdef\""),
        RequestBody.fromString("three"));
    assertThat(text("inme/a")).isEqualTo("three");
  }

  @Test
  void completeMultipartUploadHonoursConditions() {
    put("cmu/a", "existing");
    String existing = etag("cmu/a");
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("cmu/a")).uploadId();
    String part = s3.uploadPart(b -> b.bucket(bucket).key("cmu/a").uploadId(uploadId).partNumber(1),
        RequestBody.fromString("multipart")).eTag();
    CompletedPart p1 = CompletedPart.builder().partNumber(1).eTag(part).build();
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("cmu/a").uploadId(uploadId)
        .ifNoneMatch("*").multipartUpload(m -> m.parts(p1))), 412, "PreconditionFailed");
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("cmu/a").uploadId(uploadId)
        .ifMatch("\"0123456789abcdef0123456789abcdef\"").multipartUpload(m -> m.parts(p1))),
        412, "PreconditionFailed");
    assertThat(text("cmu/a")).isEqualTo("existing");
    s3.completeMultipartUpload(b -> b.bucket(bucket).key("cmu/a").uploadId(uploadId)
        .ifMatch(existing).multipartUpload(m -> m.parts(p1)));
    assertThat(text("cmu/a")).isEqualTo("multipart");

    String other = s3.createMultipartUpload(b -> b.bucket(bucket).key("cmu/missing")).uploadId();
    String part2 = s3.uploadPart(b -> b.bucket(bucket).key("cmu/missing").uploadId(other).partNumber(1),
        RequestBody.fromString("m")).eTag();
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("cmu/missing").uploadId(other)
        .ifMatch(existing).multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(part2).build()))),
        404, "NoSuchKey");
    s3.abortMultipartUpload(b -> b.bucket(bucket).key("cmu/missing").uploadId(other));
  }

  @Test
  void deleteObjectIfMatchEtagTimeAndSize() {
    String etag = put("del/a", "12345");
    var head = s3.headObject(b -> b.bucket(bucket).key("del/a"));
    Instant modified = head.lastModified();
    assertS3Error(() -> s3.deleteObject(b -> b.bucket(bucket).key("del/a")
        .ifMatch("\"0123456789abcdef0123456789abcdef\"")), 412, "PreconditionFailed");
    assertS3Error(() -> s3.deleteObject(b -> b.bucket(bucket).key("del/a").ifMatchSize(4L)),
        412, "PreconditionFailed");
    assertS3Error(() -> s3.deleteObject(b -> b.bucket(bucket).key("del/a")
        .ifMatchLastModifiedTime(modified.minusSeconds(3600))), 412, "PreconditionFailed");
    assertThat(text("del/a")).isEqualTo("12345");
    s3.deleteObject(b -> b.bucket(bucket).key("del/a").ifMatch(etag).ifMatchSize(5L)
        .ifMatchLastModifiedTime(modified));
    assertS3Error(() -> s3.headObject(b -> b.bucket(bucket).key("del/a")), 404, null);
    assertS3Error(() -> s3.deleteObject(b -> b.bucket(bucket).key("del/a").ifMatch(etag)), 404, "NoSuchKey");
    put("del/b", "b");
    s3.deleteObject(b -> b.bucket(bucket).key("del/b").ifMatch("*"));
    assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("del/")).contents()).isEmpty();
  }

  @Test
  void deleteObjectsReportsEachFailedConditionPerKey() {
    String a = put("dos/a", "a");
    put("dos/b", "b");
    put("dos/c", "ccc");
    DeleteObjectsResponse response = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(
        ObjectIdentifier.builder().key("dos/a").eTag(a).build(),
        ObjectIdentifier.builder().key("dos/b").eTag("\"0123456789abcdef0123456789abcdef\"").build(),
        ObjectIdentifier.builder().key("dos/c").size(1L).build(),
        ObjectIdentifier.builder().key("dos/missing").eTag(a).build())));
    assertThat(response.deleted()).extracting(o -> o.key()).containsExactly("dos/a");
    assertThat(response.errors()).extracting(e -> e.key() + " " + e.code()).containsExactlyInAnyOrder(
        "dos/b PreconditionFailed", "dos/c PreconditionFailed", "dos/missing NoSuchKey");
    assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("dos/")).contents())
        .extracting(o -> o.key()).containsExactly("dos/b", "dos/c");
  }

  @Test
  void concurrentIfNoneMatchWritersHaveExactlyOneWinner() throws Exception {
    List<Integer> winners = race(16, 412, i -> () -> {
      s3.putObject(b -> b.bucket(bucket).key("race/create").ifNoneMatch("*"), RequestBody.fromString("writer-" + i));
      return i;
    });
    assertThat(winners).hasSize(1);
    assertThat(text("race/create")).isEqualTo("writer-" + winners.get(0));
  }

  @Test
  void concurrentIfMatchWritersHaveExactlyOneWinner() throws Exception {
    String base = put("race/update", "base");
    List<Integer> winners = race(16, 412, i -> () -> {
      s3.putObject(b -> b.bucket(bucket).key("race/update").ifMatch(base), RequestBody.fromString("writer-" + i));
      return i;
    });
    assertThat(winners).hasSize(1);
    assertThat(text("race/update")).isEqualTo("writer-" + winners.get(0));
  }

  /**
   * Conditions the endpoint resolves itself (size, time) read the current version first: only
   * the node's per-key order keeps two such deletes from both passing, since s3proxy deletes a
   * missing key under If-Match without complaint.
   */
  @Test
  void concurrentConditionalDeletesHaveExactlyOneWinner() throws Exception {
    for (int round = 0; round < 5; round++) {
      put("race/delete", "12345");
      List<Integer> winners = race(8, 404, i -> () -> {
        s3.deleteObject(b -> b.bucket(bucket).key("race/delete").ifMatchSize(5L));
        return i;
      });
      assertThat(winners).as("round %d", round).hasSize(1);
    }
  }

  /** Runs n writers at once; returns the ids of those that succeeded. Every loser must get loserStatus. */
  private static List<Integer> race(int n, int loserStatus, java.util.function.IntFunction<Callable<Integer>> writer)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Callable<Integer> w = writer.apply(i);
        futures.add(pool.submit(() -> {
          go.await();
          try {
            return w.call();
          } catch (S3Exception e) {
            assertThat(e.statusCode()).as("a losing writer: %s", e.getMessage()).isEqualTo(loserStatus);
            return -1;
          }
        }));
      }
      go.countDown();
      List<Integer> winners = new ArrayList<>();
      for (Future<Integer> f : futures) {
        int id = f.get();
        if (id >= 0) {
          winners.add(id);
        }
      }
      return winners;
    } finally {
      pool.shutdownNow();
    }
  }
}
