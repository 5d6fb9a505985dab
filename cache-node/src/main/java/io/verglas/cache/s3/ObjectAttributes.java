package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * GetObjectAttributes ({@code GET ?attributes}): ETag (unquoted, as S3 answers here), the part
 * count of a multipart object (from its {@code -N} ETag), storage class (always STANDARD) and
 * size, each only if asked for in {@code x-amz-object-attributes}. Checksum is accepted and left
 * out: origins do not store the checksums clients send (they are verified on upload), and S3 too
 * leaves it out for objects stored without one. Part sizes are not listed for the same reason.
 */
final class ObjectAttributes {
  private static final Set<String> KNOWN = Set.of("ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize");

  private final Origin origin;

  ObjectAttributes(Origin origin) {
    this.origin = origin;
  }

  CompletableFuture<S3Response> get(S3Request r) {
    // A list header: one line with commas, or (as the AWS SDK for Java sends it) one per value.
    Set<String> wanted = attributes(String.join(",", r.headers.getAll("x-amz-object-attributes")));
    String versionId = r.param("versionId");
    CompletableFuture<ObjectMeta> head = versionId != null
        ? origin.headVersion(r.bucket, r.key, versionId)
        : origin.head(r.bucket, r.key);
    return head.thenApply(meta -> {
      S3Xml xml = S3Xml.document("GetObjectAttributesResponse");
      if (wanted.contains("ETag")) {
        xml.element("ETag", ETags.bare(meta.etag()));
      }
      int parts = partsCount(meta.etag());
      if (wanted.contains("ObjectParts") && parts > 0) {
        xml.start("ObjectParts").element("PartsCount", parts).end();
      }
      if (wanted.contains("StorageClass")) {
        xml.element("StorageClass", "STANDARD");
      }
      if (wanted.contains("ObjectSize")) {
        xml.element("ObjectSize", meta.size());
      }
      S3Response response = S3Response.xml(xml)
          .header(HttpHeaderNames.LAST_MODIFIED, S3Dates.http(meta.lastModified()));
      if (versionId != null) {
        response.header("x-amz-version-id", versionId);
      }
      return response;
    });
  }

  /** The number of parts of a multipart object from its ETag ({@code "...-N"}), else 0. */
  static int partsCount(String etag) {
    String bare = ETags.bare(etag);
    int dash = bare.lastIndexOf('-');
    if (dash < 0) {
      return 0;
    }
    try {
      return Integer.parseInt(bare.substring(dash + 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Set<String> attributes(String header) {
    Set<String> wanted = new LinkedHashSet<>();
    if (header != null) {
      for (String name : header.split(",")) {
        String n = name.trim();
        if (n.isEmpty()) {
          continue;
        }
        if (!KNOWN.contains(n)) {
          throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid attribute name specified: " + n);
        }
        wanted.add(n);
      }
    }
    if (wanted.isEmpty()) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "The x-amz-object-attributes header specifying the attributes to be retrieved is either"
              + " missing or empty");
    }
    return wanted;
  }
}
