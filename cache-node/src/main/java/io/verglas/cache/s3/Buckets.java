package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.verglas.cache.origin.Origin;
import java.util.concurrent.CompletableFuture;
import org.w3c.dom.Element;

/**
 * HeadBucket, CreateBucket (with S3's naming rules, {@link BucketNames}), DeleteBucket,
 * GetBucketLocation and GetBucketVersioning.
 */
final class Buckets {
  private final Origin origin;
  private final String region;

  Buckets(Origin origin, String region) {
    this.origin = origin;
    this.region = region;
  }

  CompletableFuture<S3Response> head(S3Request r) {
    return requireBucket(r).thenApply(v -> S3Response.ok().header("x-amz-bucket-region", region));
  }

  CompletableFuture<S3Response> create(Exchange ex) {
    S3Request r = ex.request();
    BucketNames.check(r.bucket);
    Acls.checkCreateBucketHeaders(r);
    if (r.header("x-amz-bucket-object-lock-enabled") != null
        && r.header("x-amz-bucket-object-lock-enabled").trim().equalsIgnoreCase("true")) {
      throw S3Exception.notImplemented("object lock");
    }
    byte[] body = ex.body().bytes();
    if (body.length > 0) {
      Element root = S3Xml.parse(body);
      if (!S3Xml.name(root).equals("CreateBucketConfiguration")) {
        throw new S3Exception(S3ErrorCode.MALFORMED_XML,
            "The XML you provided was not well-formed or did not validate against our published"
                + " schema: the root element must be CreateBucketConfiguration");
      }
    }
    return origin.createBucket(r.bucket)
        .thenApply(v -> S3Response.ok().header(HttpHeaderNames.LOCATION, "/" + r.bucket));
  }

  CompletableFuture<S3Response> delete(S3Request r) {
    return origin.deleteBucket(r.bucket).thenApply(v -> S3Response.noContent());
  }

  CompletableFuture<S3Response> location(S3Request r) {
    // us-east-1 is spelled as an empty LocationConstraint, as S3 does.
    String constraint = region.equals("us-east-1") ? "" : region;
    return requireBucket(r).thenApply(v ->
        S3Response.xml(S3Xml.document("LocationConstraint").text(constraint)));
  }

  CompletableFuture<S3Response> versioning(S3Request r) {
    // Unversioned: an empty configuration, as S3 answers for a bucket that never had versioning.
    return requireBucket(r).thenApply(v -> S3Response.xml(S3Xml.document("VersioningConfiguration")));
  }

  private CompletableFuture<Void> requireBucket(S3Request r) {
    return origin.bucketExists(r.bucket).thenAccept(exists -> {
      if (!exists) {
        throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET,
            "The specified bucket does not exist: " + r.bucket);
      }
    });
  }
}
