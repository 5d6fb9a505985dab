package io.verglas.cache.s3;

import io.verglas.cache.origin.Origin;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.w3c.dom.Element;

/**
 * ACL sub-resources, answered as S3 does for a bucket with Object Ownership "bucket owner
 * enforced" (the default of new buckets since 2023): every object and bucket has the private ACL
 * of its owner, reads of {@code ?acl} return it, and a write that asks for anything else fails
 * with AccessControlListNotSupported (InvalidBucketAclWithObjectOwnership on CreateBucket).
 * Writing the owner's private ACL again is accepted and changes nothing.
 */
final class Acls {
  private static final String XSI = "http://www.w3.org/2001/XMLSchema-instance";
  /** Canned ACLs that mean "the owner has full control" under enforced ownership. */
  private static final Set<String> OWNER_ONLY = Set.of("private", "bucket-owner-full-control");

  private final Origin origin;

  Acls(Origin origin) {
    this.origin = origin;
  }

  CompletableFuture<S3Response> getObjectAcl(S3Request r) {
    return objectExists(r).thenApply(v -> policy());
  }

  CompletableFuture<S3Response> getBucketAcl(S3Request r) {
    return bucketExists(r).thenApply(v -> policy());
  }

  CompletableFuture<S3Response> putObjectAcl(Exchange ex) {
    checkOwnerOnly(ex);
    return objectExists(ex.request()).thenApply(v -> S3Response.ok());
  }

  CompletableFuture<S3Response> putBucketAcl(Exchange ex) {
    checkOwnerOnly(ex);
    return bucketExists(ex.request()).thenApply(v -> S3Response.ok());
  }

  /** Refuses ACL headers of a write (PutObject, CopyObject, CreateMultipartUpload) other than private. */
  static void checkWriteHeaders(S3Request r) {
    if (!ownerOnlyHeaders(r)) {
      throw notSupported();
    }
  }

  /** Refuses ACL headers of a CreateBucket other than private, with S3's error for that case. */
  static void checkCreateBucketHeaders(S3Request r) {
    if (!ownerOnlyHeaders(r)) {
      throw new S3Exception(S3ErrorCode.INVALID_BUCKET_ACL_WITH_OBJECT_OWNERSHIP,
          "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting");
    }
  }

  private static boolean ownerOnlyHeaders(S3Request r) {
    String acl = r.header("x-amz-acl");
    if (acl != null && !OWNER_ONLY.contains(acl.trim())) {
      return false;
    }
    for (Map.Entry<String, String> h : r.headers) {
      if (h.getKey().toLowerCase(Locale.ROOT).startsWith("x-amz-grant-")) {
        return false;
      }
    }
    return true;
  }

  private static void checkOwnerOnly(Exchange ex) {
    checkWriteHeaders(ex.request());
    byte[] body = ex.body() == null ? new byte[0] : ex.body().bytes();
    if (body.length == 0) {
      return;
    }
    Element root = S3Xml.parse(body);
    if (!S3Xml.name(root).equals("AccessControlPolicy")) {
      throw new S3Exception(S3ErrorCode.MALFORMED_XML,
          "The XML you provided was not well-formed or did not validate against our published"
              + " schema: the root element must be AccessControlPolicy");
    }
    for (Element list : S3Xml.children(root, "AccessControlList")) {
      for (Element grant : S3Xml.children(list, "Grant")) {
        Element grantee = S3Xml.children(grant, "Grantee").stream().findFirst().orElse(null);
        String id = grantee == null ? null : S3Xml.childText(grantee, "ID");
        if (!Listings.OWNER_ID.equals(id) || !"FULL_CONTROL".equals(S3Xml.childText(grant, "Permission"))) {
          throw notSupported();
        }
      }
    }
  }

  private static S3Exception notSupported() {
    return new S3Exception(S3ErrorCode.ACCESS_CONTROL_LIST_NOT_SUPPORTED,
        "The bucket does not allow ACLs (object ownership is enforced: only the owner's private"
            + " ACL exists)");
  }

  private static S3Response policy() {
    S3Xml xml = S3Xml.document("AccessControlPolicy");
    Listings.owner(xml);
    xml.start("AccessControlList").start("Grant")
        .startWithAttributes("Grantee", "xmlns:xsi=\"" + XSI + "\" xsi:type=\"CanonicalUser\"")
        .element("ID", Listings.OWNER_ID).element("DisplayName", Listings.OWNER_ID).end()
        .element("Permission", "FULL_CONTROL").end().end();
    return S3Response.xml(xml);
  }

  private CompletableFuture<Void> objectExists(S3Request r) {
    String versionId = r.param("versionId");
    return (versionId != null ? origin.headVersion(r.bucket, r.key, versionId) : origin.head(r.bucket, r.key))
        .thenAccept(meta -> { });
  }

  private CompletableFuture<Void> bucketExists(S3Request r) {
    return origin.bucketExists(r.bucket).thenAccept(exists -> {
      if (!exists) {
        throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET,
            "The specified bucket does not exist: " + r.bucket);
      }
    });
  }
}
