package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Multipart behaviour SDKs and engines rely on: a repeated CompleteMultipartUpload (an SDK retry
 * after a lost response) succeeds with the first result, a re-uploaded part number replaces the
 * part, and Complete takes the last entry of a part number listed twice.
 */
abstract class S3MultipartSpec extends S3NodeFixture {
  S3MultipartSpec(OriginKind kind) {
    super(kind, "multipart");
  }

  private String uploadPart(String key, String uploadId, int number, byte[] content) {
    return s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(number),
        RequestBody.fromBytes(content)).eTag();
  }

  private static CompletedPart part(int number, String etag) {
    return CompletedPart.builder().partNumber(number).eTag(etag).build();
  }

  private byte[] content(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void aRepeatedCompleteWithTheSamePartsAnswersTheFirstResult() {
    byte[] p1 = bytes(5 * MIB, 1);
    byte[] p2 = bytes(100, 2);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("retry/a")).uploadId();
    CompletedPart c1 = part(1, uploadPart("retry/a", uploadId, 1, p1));
    CompletedPart c2 = part(2, uploadPart("retry/a", uploadId, 2, p2));
    var first = s3.completeMultipartUpload(b -> b.bucket(bucket).key("retry/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(c1, c2)));
    var again = s3.completeMultipartUpload(b -> b.bucket(bucket).key("retry/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(c1, c2)));
    assertThat(again.eTag()).isEqualTo(first.eTag()).endsWith("-2\"");
    assertThat(again.key()).isEqualTo("retry/a");
    assertThat(content("retry/a")).isEqualTo(concat(p1, p2));
    // Not the same request: the upload is gone, as on S3.
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("retry/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(c1))), 404, "NoSuchUpload");
    assertS3Error(() -> s3.listParts(b -> b.bucket(bucket).key("retry/a").uploadId(uploadId)), 404, "NoSuchUpload");
    assertThat(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("retry/")).uploads()).isEmpty();
  }

  @Test
  void aReUploadedPartReplacesTheFirst() {
    byte[] old = bytes(5 * MIB, 3);
    byte[] replacement = bytes(5 * MIB, 4);
    byte[] last = bytes(10, 5);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("replace/a")).uploadId();
    String oldEtag = uploadPart("replace/a", uploadId, 1, old);
    String newEtag = uploadPart("replace/a", uploadId, 1, replacement);
    String lastEtag = uploadPart("replace/a", uploadId, 2, last);
    assertThat(s3.listParts(b -> b.bucket(bucket).key("replace/a").uploadId(uploadId)).parts())
        .extracting(p -> p.partNumber() + " " + p.eTag()).containsExactly("1 " + newEtag, "2 " + lastEtag);
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("replace/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(part(1, oldEtag), part(2, lastEtag)))), 400, "InvalidPart");
    s3.completeMultipartUpload(b -> b.bucket(bucket).key("replace/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(part(1, newEtag), part(2, lastEtag))));
    assertThat(content("replace/a")).isEqualTo(concat(replacement, last));
  }

  @Test
  void completeTakesTheLastEntryOfAPartNumberListedTwice() {
    byte[] old = bytes(5 * MIB, 6);
    byte[] replacement = bytes(5 * MIB, 7);
    byte[] last = bytes(10, 8);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("twice/a")).uploadId();
    String oldEtag = uploadPart("twice/a", uploadId, 1, old);
    String newEtag = uploadPart("twice/a", uploadId, 1, replacement);
    String lastEtag = uploadPart("twice/a", uploadId, 2, last);
    s3.completeMultipartUpload(b -> b.bucket(bucket).key("twice/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(part(1, oldEtag), part(1, newEtag), part(2, lastEtag))));
    assertThat(content("twice/a")).isEqualTo(concat(replacement, last));
  }

  @Test
  void partsOutOfOrderAreStillRefused() {
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("order/a")).uploadId();
    String e1 = uploadPart("order/a", uploadId, 1, bytes(5 * MIB, 9));
    String e2 = uploadPart("order/a", uploadId, 2, bytes(10, 10));
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("order/a").uploadId(uploadId)
        .multipartUpload(m -> m.parts(part(2, e2), part(1, e1)))), 400, "InvalidPartOrder");
    s3.abortMultipartUpload(b -> b.bucket(bucket).key("order/a").uploadId(uploadId));
  }
}
