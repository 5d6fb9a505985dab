package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketCannedACL;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesResponse;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.StorageClass;
import software.amazon.awssdk.services.s3.model.Type;

/**
 * GetObjectAttributes, the ACL sub-resources (a bucket with enforced object ownership, as S3
 * creates them since 2023), S3's bucket naming rules on CreateBucket, and versioning requests
 * (out of scope: NotImplemented with a clear message).
 */
abstract class S3SubresourceSpec extends S3NodeFixture {
  S3SubresourceSpec(OriginKind kind) {
    super(kind, "subresources");
  }

  @Test
  void getObjectAttributesOfASingleAndAMultipartObject() {
    String etag = put("attr/single", "12345");
    GetObjectAttributesResponse single = s3.getObjectAttributes(b -> b.bucket(bucket).key("attr/single")
        .objectAttributes(ObjectAttributes.E_TAG, ObjectAttributes.OBJECT_SIZE, ObjectAttributes.STORAGE_CLASS,
            ObjectAttributes.OBJECT_PARTS, ObjectAttributes.CHECKSUM));
    assertThat(single.eTag()).isEqualTo(etag.replace("\"", ""));
    assertThat(single.objectSize()).isEqualTo(5L);
    assertThat(single.storageClass()).isEqualTo(StorageClass.STANDARD);
    assertThat(single.objectParts()).isNull();
    assertThat(single.lastModified()).isNotNull();

    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("attr/multi")).uploadId();
    String p1 = s3.uploadPart(b -> b.bucket(bucket).key("attr/multi").uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(bytes(5 * MIB, 1))).eTag();
    String p2 = s3.uploadPart(b -> b.bucket(bucket).key("attr/multi").uploadId(uploadId).partNumber(2),
        RequestBody.fromBytes(bytes(7, 2))).eTag();
    s3.completeMultipartUpload(b -> b.bucket(bucket).key("attr/multi").uploadId(uploadId).multipartUpload(m -> m.parts(
        CompletedPart.builder().partNumber(1).eTag(p1).build(), CompletedPart.builder().partNumber(2).eTag(p2).build())));
    GetObjectAttributesResponse multi = s3.getObjectAttributes(b -> b.bucket(bucket).key("attr/multi")
        .objectAttributes(ObjectAttributes.OBJECT_PARTS, ObjectAttributes.OBJECT_SIZE));
    assertThat(multi.objectParts().totalPartsCount()).isEqualTo(2);
    assertThat(multi.objectSize()).isEqualTo(5L * MIB + 7);
    assertThat(multi.eTag()).isNull();

    assertS3Error(() -> s3.getObjectAttributes(b -> b.bucket(bucket).key("attr/missing")
        .objectAttributes(ObjectAttributes.E_TAG)), 404, "NoSuchKey");
  }

  @Test
  void getObjectAttributesNeedsKnownAttributeNames() throws Exception {
    put("attr/names", "x");
    var missing = raw("GET", "/" + bucket + "/attr/names?attributes", Map.of(), new byte[0]);
    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.text()).contains("<Code>InvalidArgument</Code>");
    var unknown = raw("GET", "/" + bucket + "/attr/names?attributes",
        Map.of("x-amz-object-attributes", "ETag,Colour"), new byte[0]);
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.text()).contains("<Code>InvalidArgument</Code>", "Colour");
    var ok = raw("GET", "/" + bucket + "/attr/names?attributes", Map.of("x-amz-object-attributes", "ETag"), new byte[0]);
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.headers()).as(ok.headers() + ok.text()).containsKey("last-modified");
  }

  @Test
  void aclReadsAnswerTheOwnersPrivateAcl() {
    put("acl/a", "x");
    for (var acl : java.util.List.of(
        s3.getObjectAcl(b -> b.bucket(bucket).key("acl/a")).grants(),
        s3.getBucketAcl(b -> b.bucket(bucket)).grants())) {
      assertThat(acl).hasSize(1);
      assertThat(acl.get(0).permission()).isEqualTo(Permission.FULL_CONTROL);
      assertThat(acl.get(0).grantee().type()).isEqualTo(Type.CANONICAL_USER);
      assertThat(acl.get(0).grantee().id()).isEqualTo(s3.getObjectAcl(b -> b.bucket(bucket).key("acl/a")).owner().id());
    }
    assertS3Error(() -> s3.getObjectAcl(b -> b.bucket(bucket).key("acl/missing")), 404, "NoSuchKey");
    assertS3Error(() -> s3.getBucketAcl(b -> b.bucket("no-such-bucket-here")), 404, "NoSuchBucket");
  }

  @Test
  void aclWritesOtherThanPrivateAreRefusedConsistently() {
    put("acl/w", "x");
    s3.putObjectAcl(b -> b.bucket(bucket).key("acl/w").acl(ObjectCannedACL.PRIVATE));
    s3.putObjectAcl(b -> b.bucket(bucket).key("acl/w").acl(ObjectCannedACL.BUCKET_OWNER_FULL_CONTROL));
    assertS3Error(() -> s3.putObjectAcl(b -> b.bucket(bucket).key("acl/w").acl(ObjectCannedACL.PUBLIC_READ)),
        400, "AccessControlListNotSupported");
    assertS3Error(() -> s3.putObjectAcl(b -> b.bucket(bucket).key("acl/w").grantRead("uri=\"http://acs.amazonaws.com/groups/global/AllUsers\"")),
        400, "AccessControlListNotSupported");
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("acl/w").acl(ObjectCannedACL.PUBLIC_READ),
        RequestBody.fromString("y")), 400, "AccessControlListNotSupported");
    s3.putObject(b -> b.bucket(bucket).key("acl/w").acl(ObjectCannedACL.PRIVATE), RequestBody.fromString("z"));
    assertThat(text("acl/w")).isEqualTo("z");
    assertS3Error(() -> s3.putBucketAcl(b -> b.bucket(bucket).acl(BucketCannedACL.PUBLIC_READ)),
        400, "AccessControlListNotSupported");
    assertS3Error(() -> s3.createBucket(b -> b.bucket("acl-public").acl(BucketCannedACL.PUBLIC_READ)),
        400, "InvalidBucketAclWithObjectOwnership");
    assertThat(s3.listBuckets().buckets()).extracting(x -> x.name()).doesNotContain("acl-public");
    s3.createBucket(b -> b.bucket("acl-private").acl(BucketCannedACL.PRIVATE));
    s3.deleteBucket(b -> b.bucket("acl-private"));
  }

  @Test
  void createBucketEnforcesS3NamingRules() throws Exception {
    // Raw requests: the SDK (like boto3) refuses some of these names before sending them.
    for (String name : java.util.List.of("ab", "a".repeat(64), "UPPER", "under_score", "-lead", "trail-",
        "two..dots", "192.168.5.4", "xn--punycode", "sthree-x", "amzn-s3-demo-x", "x-s3alias", "x--ol-s3",
        "x.mrap", "x--x-s3", "x--table-s3")) {
      var response = raw("PUT", "/" + name, Map.of(), new byte[0]);
      assertThat(response.status()).as(name).isEqualTo(400);
      assertThat(response.text()).as(name).contains("<Code>InvalidBucketName</Code>");
    }
    assertThat(s3.listBuckets().buckets()).extracting(x -> x.name()).containsExactly(bucket);
    for (String name : java.util.List.of("abc", "a".repeat(63), "my.bucket-1", "192.168.5.com", "1-2")) {
      s3.createBucket(b -> b.bucket(name));
      s3.deleteBucket(b -> b.bucket(name));
    }
  }

  @Test
  void versioningStaysOutOfScope() {
    assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isNull();
    var e = assertS3Error(() -> s3.putBucketVersioning(b -> b.bucket(bucket)
        .versioningConfiguration(v -> v.status("Enabled"))), 501, "NotImplemented");
    assertThat(e.awsErrorDetails().errorMessage()).contains("PutBucketVersioning");
  }
}
