package io.verglas.cache.origin.azure;

import static io.verglas.cache.origin.azure.AzureTesting.assertReason;
import static io.verglas.cache.origin.azure.AzureTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.PartInfo;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Multipart uploads on staged blocks: state in the store, parts named by ETag. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AzureMultipartTest {
  @RegisterExtension static final AzuriteExtension AZURITE = new AzuriteExtension();
  private static final int MIB = CacheNode.MIB;
  private AzureOrigin origin;

  @BeforeAll
  void start() {
    origin = AZURITE.sharedKeyOrigin();
    origin.createBucket("mpu").join();
  }

  @AfterAll
  void stop() {
    origin.close();
  }

  @Test
  void anUploadStartedBeforeANodeRestartCompletesAfterIt() throws Exception {
    byte[] part1 = bytes(5 * MIB, 1);
    byte[] part2 = bytes(777, 2);
    String uploadId;
    String etag1;
    try (Node first = new Node()) {
      uploadId = first.s3.createMultipartUpload(b -> b.bucket("mpu").key("restart").contentType("text/x-test")
          .metadata(Map.of("stage", "one"))).uploadId();
      etag1 = first.s3.uploadPart(b -> b.bucket("mpu").key("restart").uploadId(uploadId).partNumber(1),
          RequestBody.fromBytes(part1)).eTag();
    }
    assertThat(etag1).isEqualTo(ETags.ofMd5(MessageDigest.getInstance("MD5").digest(part1)));
    try (Node second = new Node()) {
      String etag2 = second.s3.uploadPart(b -> b.bucket("mpu").key("restart").uploadId(uploadId).partNumber(2),
          RequestBody.fromBytes(part2)).eTag();
      assertThat(second.s3.listParts(b -> b.bucket("mpu").key("restart").uploadId(uploadId)).parts())
          .extracting(p -> p.partNumber() + " " + p.eTag() + " " + p.size())
          .containsExactly("1 " + etag1 + " " + part1.length, "2 " + etag2 + " " + part2.length);
      String completed = second.s3.completeMultipartUpload(b -> b.bucket("mpu").key("restart").uploadId(uploadId)
          .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag1), p -> p.partNumber(2).eTag(etag2)))).eTag();
      var head = second.s3.headObject(b -> b.bucket("mpu").key("restart"));
      assertThat(head.eTag()).isEqualTo(completed);
      assertThat(head.contentType()).isEqualTo("text/x-test");
      assertThat(head.metadata()).containsEntry("stage", "one");
      byte[] all = second.s3.getObjectAsBytes(b -> b.bucket("mpu").key("restart")).asByteArray();
      assertThat(Arrays.copyOfRange(all, 0, part1.length)).isEqualTo(part1);
      assertThat(Arrays.copyOfRange(all, part1.length, all.length)).isEqualTo(part2);
    }
    assertThat(origin.listUploads(new UploadListRequest("mpu", "restart", null, null, 1000)).join().uploads()).isEmpty();
  }

  @Test
  void completeChecksOrderSizesAndEtags() {
    MultipartUpload upload = create("checks");
    String small = origin.uploadPart(upload, 1, ObjectBody.ofBytes(bytes(1000, 3))).join();
    String last = origin.uploadPart(upload, 2, ObjectBody.ofBytes(bytes(10, 4))).join();
    assertReason(origin.completeMultipartUpload(upload, List.of(new CompletedPart(2, last), new CompletedPart(1, small)),
        WriteCondition.NONE), Reason.INVALID_PART_ORDER);
    assertReason(origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, small), new CompletedPart(2, last)),
        WriteCondition.NONE), Reason.ENTITY_TOO_SMALL);
    assertReason(origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, last)), WriteCondition.NONE),
        Reason.INVALID_PART);
    assertReason(origin.completeMultipartUpload(upload, List.of(new CompletedPart(3, last)), WriteCondition.NONE),
        Reason.INVALID_PART);
    assertReason(origin.uploadPart(upload, 10_001, ObjectBody.ofBytes(new byte[1])), Reason.INVALID_ARGUMENT);
    PutResult one = origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, small)), WriteCondition.NONE)
        .join();
    ObjectMeta meta = origin.head("mpu", "checks").join();
    assertThat(meta.etag()).isEqualTo(one.etag());
    assertThat(meta.size()).isEqualTo(1000);
  }

  @Test
  void aPartUploadedTwiceCommitsTheVersionTheClientNames() {
    MultipartUpload upload = create("twice");
    byte[] a = bytes(100, 5);
    byte[] b = bytes(100, 6);
    String etagA = origin.uploadPart(upload, 1, ObjectBody.ofBytes(a)).join();
    String etagB = origin.uploadPart(upload, 1, ObjectBody.ofBytes(b)).join();
    assertThat(etagA).isNotEqualTo(etagB);
    PutResult done = origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, etagB)), WriteCondition.NONE)
        .join();
    assertThat(origin.readRange("mpu", "twice", done.etag(), 0, 100).join()).isEqualTo(b);
  }

  @Test
  void completeIsConditionalAndRemovesTheUpload() {
    origin.put("mpu", "exists", ObjectBody.ofBytes(new byte[] {1}), WriteOptions.DEFAULT).join();
    MultipartUpload upload = create("exists");
    String etag = origin.uploadPart(upload, 1, ObjectBody.ofBytes(new byte[] {2})).join();
    assertReason(origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, etag)),
        WriteCondition.ifNoneMatchAny()), Reason.PRECONDITION_FAILED);
    String current = origin.head("mpu", "exists").join().etag();
    PutResult replaced = origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, etag)),
        WriteCondition.ifMatch(current)).join();
    assertThat(origin.readRange("mpu", "exists", replaced.etag(), 0, 1).join()).containsExactly(2);
    assertReason(origin.listParts(upload, 0, 1000), Reason.NO_SUCH_UPLOAD);
  }

  @Test
  void abortedUnknownAndMismatchedUploadsAreNoSuchUpload() {
    MultipartUpload upload = create("aborted");
    origin.uploadPart(upload, 1, ObjectBody.ofBytes(new byte[] {1})).join();
    origin.abortMultipartUpload(upload).join();
    assertReason(origin.listParts(upload, 0, 1000), Reason.NO_SUCH_UPLOAD);
    assertReason(origin.uploadPart(upload, 2, ObjectBody.ofBytes(new byte[] {1})), Reason.NO_SUCH_UPLOAD);
    assertReason(origin.abortMultipartUpload(upload), Reason.NO_SUCH_UPLOAD);
    assertReason(origin.listParts(new MultipartUpload("mpu", "aborted", "not-ours"), 0, 1000), Reason.NO_SUCH_UPLOAD);
    MultipartUpload other = create("mine");
    assertReason(origin.uploadPart(new MultipartUpload("mpu", "someone-else", other.uploadId()), 1,
        ObjectBody.ofBytes(new byte[] {1})), Reason.NO_SUCH_UPLOAD);
    origin.abortMultipartUpload(other).join();
  }

  @Test
  void listingsOfUploadsAndPartsPage() {
    origin.createBucket("uploads").join();
    MultipartUpload b1 = create("uploads", "k/b");
    MultipartUpload a1 = create("uploads", "k/a");
    MultipartUpload a2 = create("uploads", "k/a");
    create("uploads", "other");
    UploadListing all = origin.listUploads(new UploadListRequest("uploads", "k/", null, null, 1000)).join();
    List<String> expectedA = a1.uploadId().compareTo(a2.uploadId()) < 0
        ? List.of("k/a " + a1.uploadId(), "k/a " + a2.uploadId())
        : List.of("k/a " + a2.uploadId(), "k/a " + a1.uploadId());
    assertThat(all.uploads()).extracting(u -> u.key() + " " + u.uploadId())
        .containsExactly(expectedA.get(0), expectedA.get(1), "k/b " + b1.uploadId());
    UploadListing page = origin.listUploads(new UploadListRequest("uploads", "k/", null, null, 2)).join();
    assertThat(page.truncated()).isTrue();
    UploadListing rest = origin.listUploads(new UploadListRequest("uploads", "k/", page.nextKeyMarker(),
        page.nextUploadIdMarker(), 2)).join();
    assertThat(rest.uploads()).extracting(u -> u.uploadId()).containsExactly(b1.uploadId());

    for (int n = 1; n <= 3; n++) {
      origin.uploadPart(b1, n, ObjectBody.ofBytes(new byte[] {(byte) n})).join();
    }
    var parts = origin.listParts(b1, 0, 2).join();
    assertThat(parts.parts()).extracting(PartInfo::partNumber).containsExactly(1, 2);
    assertThat(parts.truncated()).isTrue();
    assertThat(origin.listParts(b1, parts.nextPartNumberMarker(), 2).join().parts())
        .extracting(PartInfo::partNumber).containsExactly(3);
  }

  private MultipartUpload create(String key) {
    return create("mpu", key);
  }

  private MultipartUpload create(String bucket, String key) {
    return new MultipartUpload(bucket, key, origin.createMultipartUpload(bucket, key, WriteOptions.DEFAULT).join());
  }

  /** A cache node with its own Azure origin (a fresh SDK client), as after a restart. */
  private static final class Node implements AutoCloseable {
    final AzureOrigin origin = AZURITE.sharedKeyOrigin();
    final CacheNode node = CacheNode.builder().credentials("mp-access", "mp-secret").origin(origin).build().start();
    final S3Client s3 = S3Client.builder().endpointOverride(node.endpoint()).forcePathStyle(true)
        .region(Region.US_EAST_1).httpClient(ApacheHttpClient.create())
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("mp-access", "mp-secret")))
        .build();

    @Override
    public void close() {
      s3.close();
      node.close();
      origin.close();
    }
  }
}
