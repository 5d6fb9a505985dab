package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3MultipartTest extends CacheNodeTestBase {
  private static final int MIB = CacheNode.MIB;

  private String create(String key) {
    return t.s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key).contentType("application/x-parquet"))
        .uploadId();
  }

  private CompletedPart upload(String key, String uploadId, int n, byte[] data) {
    String etag = t.s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(n),
        RequestBody.fromBytes(data)).eTag();
    return CompletedPart.builder().partNumber(n).eTag(etag).build();
  }

  @Test
  void threePartsAssembleWithS3MultipartEtag() throws Exception {
    byte[][] parts = {
      S3ObjectOperationsTest.randomBytes(5 * MIB, 1),
      S3ObjectOperationsTest.randomBytes(5 * MIB, 2),
      S3ObjectOperationsTest.randomBytes(MIB + 17, 3)
    };
    String id = create("big/file.parquet");
    List<CompletedPart> completed = new ArrayList<>();
    MessageDigest md5s = MessageDigest.getInstance("MD5");
    for (int i = 0; i < parts.length; i++) {
      completed.add(upload("big/file.parquet", id, i + 1, parts[i]));
      md5s.update(MessageDigest.getInstance("MD5").digest(parts[i]));
    }
    ListPartsResponse listed = t.s3.listParts(b -> b.bucket(BUCKET).key("big/file.parquet").uploadId(id));
    assertThat(listed.parts()).extracting(p -> p.partNumber()).containsExactly(1, 2, 3);
    assertThat(listed.parts().get(2).size()).isEqualTo(MIB + 17);
    // Staged parts are not objects.
    assertThat(t.s3.listObjectsV2(b -> b.bucket(BUCKET)).contents()).isEmpty();

    String etag = t.s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("big/file.parquet").uploadId(id)
        .multipartUpload(m -> m.parts(completed))).eTag();
    assertThat(etag).isEqualTo("\"" + HexFormat.of().formatHex(md5s.digest()) + "-3\"");

    byte[] all = concat(parts);
    var got = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("big/file.parquet"));
    assertThat(got.response().eTag()).isEqualTo(etag);
    assertThat(got.response().contentType()).isEqualTo("application/x-parquet");
    assertThat(Arrays.equals(got.asByteArray(), all)).isTrue();
    // Of the staging area only the completion record is left (for a repeated Complete).
    try (var files = Files.walk(dir.resolve(".verglas/uploads"))) {
      assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
          .containsExactly("completed.json");
    }
    assertThatThrownBy(() -> t.s3.listParts(b -> b.bucket(BUCKET).key("big/file.parquet").uploadId(id)))
        .isInstanceOf(NoSuchUploadException.class);
  }

  @Test
  void listMultipartUploadsPagesInKeyOrderAndForgetsFinishedOnes() {
    String b1 = create("b/one");
    String a1 = create("a/one");
    String a2 = create("a/one");
    String c1 = create("c/one");
    List<String> expectedA = a1.compareTo(a2) < 0 ? List.of(a1, a2) : List.of(a2, a1);

    var all = t.s3.listMultipartUploads(b -> b.bucket(BUCKET));
    assertThat(all.uploads()).extracting(u -> u.key()).containsExactly("a/one", "a/one", "b/one", "c/one");
    assertThat(all.uploads()).extracting(u -> u.uploadId()).containsExactly(expectedA.get(0), expectedA.get(1), b1, c1);
    assertThat(all.uploads()).allSatisfy(u -> assertThat(u.initiated()).isNotNull());
    assertThat(all.isTruncated()).isFalse();

    var first = t.s3.listMultipartUploads(b -> b.bucket(BUCKET).maxUploads(2));
    assertThat(first.isTruncated()).isTrue();
    assertThat(first.uploads()).extracting(u -> u.uploadId()).containsExactlyElementsOf(expectedA);
    var rest = t.s3.listMultipartUploads(b -> b.bucket(BUCKET).maxUploads(2)
        .keyMarker(first.nextKeyMarker()).uploadIdMarker(first.nextUploadIdMarker()));
    assertThat(rest.uploads()).extracting(u -> u.uploadId()).containsExactly(b1, c1);
    assertThat(rest.isTruncated()).isFalse();
    // A key marker alone skips every upload of that key.
    assertThat(t.s3.listMultipartUploads(b -> b.bucket(BUCKET).keyMarker("a/one")).uploads())
        .extracting(u -> u.key()).containsExactly("b/one", "c/one");
    assertThat(t.s3.listMultipartUploads(b -> b.bucket(BUCKET).prefix("b/")).uploads())
        .extracting(u -> u.uploadId()).containsExactly(b1);

    t.s3.abortMultipartUpload(b -> b.bucket(BUCKET).key("b/one").uploadId(b1));
    assertThat(t.s3.listMultipartUploads(b -> b.bucket(BUCKET)).uploads())
        .extracting(u -> u.key()).containsExactly("a/one", "a/one", "c/one");
    assertThatThrownBy(() -> t.s3.listMultipartUploads(b -> b.bucket(BUCKET).delimiter("/")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(501));
  }

  @Test
  void smallNonLastPartIsEntityTooSmall() {
    String id = create("small");
    List<CompletedPart> completed = List.of(
        upload("small", id, 1, new byte[1024]), upload("small", id, 2, new byte[10]));
    assertThatThrownBy(() -> t.s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("small").uploadId(id)
        .multipartUpload(m -> m.parts(completed))))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(400);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("EntityTooSmall");
        });
    // A single small part is fine: the last part has no minimum.
    String id2 = create("single");
    CompletedPart only = upload("single", id2, 1, new byte[] {1, 2, 3});
    t.s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("single").uploadId(id2)
        .multipartUpload(m -> m.parts(only)));
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("single")).asByteArray()).containsExactly(1, 2, 3);
  }

  @Test
  void wrongEtagOrOrderIsRefusedAndAbortRemovesTheUpload() {
    String id = create("k");
    CompletedPart p1 = upload("k", id, 1, new byte[5 * MIB]);
    CompletedPart p2 = upload("k", id, 2, new byte[1]);
    assertThatThrownBy(() -> t.s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("k").uploadId(id)
        .multipartUpload(m -> m.parts(p1, p2.toBuilder().eTag("\"00000000000000000000000000000000\"").build()))))
        .isInstanceOfSatisfying(S3Exception.class, e ->
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidPart"));
    assertThatThrownBy(() -> t.s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("k").uploadId(id)
        .multipartUpload(m -> m.parts(p2, p1))))
        .isInstanceOfSatisfying(S3Exception.class, e ->
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidPartOrder"));
    t.s3.abortMultipartUpload(b -> b.bucket(BUCKET).key("k").uploadId(id));
    assertThatThrownBy(() -> t.s3.uploadPart(b -> b.bucket(BUCKET).key("k").uploadId(id).partNumber(3),
        RequestBody.fromBytes(new byte[1])))
        .isInstanceOf(NoSuchUploadException.class);
    assertThatThrownBy(() -> t.s3.abortMultipartUpload(b -> b.bucket(BUCKET).key("k").uploadId("../../etc")))
        .isInstanceOf(NoSuchUploadException.class);
  }

  @Test
  void completeWithIfNoneMatchStarRefusesAnExistingKey() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("exists"), RequestBody.fromString("old"));
    String id = create("exists");
    CompletedPart p = upload("exists", id, 1, new byte[] {9});
    assertThatThrownBy(() -> t.s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("exists").uploadId(id)
        .ifNoneMatch("*").multipartUpload(m -> m.parts(p))))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("exists")).asUtf8String()).isEqualTo("old");
  }

  private static byte[] concat(byte[][] parts) {
    int total = 0;
    for (byte[] p : parts) {
      total += p.length;
    }
    byte[] all = new byte[total];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return all;
  }
}
