package io.verglas.cache.s3;

import io.verglas.cache.origin.BucketInfo;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.ListedObject;
import io.verglas.cache.origin.Origin;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * ListBuckets, ListObjectsV2, ListObjects (v1) and ListObjectVersions. Listings are never cached:
 * they go to the origin, whose continuation tokens are passed through opaquely. Without
 * versioning, ListObjectVersions answers the current objects with VersionId {@code null}, which
 * is what clients that empty a bucket need. {@code encoding-type=url} (sent by the AWS SDKs) is
 * honoured.
 */
final class Listings {
  static final String OWNER_ID = "verglas";

  private final Origin origin;

  Listings(Origin origin) {
    this.origin = origin;
  }

  CompletableFuture<S3Response> listBuckets(S3Request r) {
    String prefix = r.param("prefix");
    int max = r.param("max-buckets") == null ? Integer.MAX_VALUE : intParam(r, "max-buckets", 1, 10_000);
    String after = r.param("continuation-token");
    return origin.listBuckets().thenApply(buckets -> {
      S3Xml xml = S3Xml.document("ListAllMyBucketsResult");
      owner(xml);
      xml.start("Buckets");
      int count = 0;
      String last = null;
      boolean more = false;
      for (BucketInfo b : buckets) {
        if ((prefix != null && !b.name().startsWith(prefix))
            || (after != null && b.name().compareTo(after) <= 0)) {
          continue;
        }
        if (count == max) {
          more = true;
          break;
        }
        xml.start("Bucket").element("Name", b.name())
            .element("CreationDate", S3Dates.xml(b.creationDate())).end();
        last = b.name();
        count++;
      }
      xml.end();
      if (more) {
        xml.element("ContinuationToken", last);
      }
      xml.element("Prefix", prefix);
      return S3Response.xml(xml);
    });
  }

  CompletableFuture<S3Response> listV2(S3Request r) {
    boolean url = encodingType(r);
    int maxKeys = maxKeys(r);
    String prefix = r.param("prefix");
    String delimiter = delimiter(r);
    String token = r.param("continuation-token");
    String startAfter = r.param("start-after");
    boolean fetchOwner = "true".equals(r.param("fetch-owner"));
    ListRequest request = new ListRequest(r.bucket, prefix, delimiter, startAfter, token, maxKeys);
    return origin.list(request).thenApply(page -> {
      S3Xml xml = S3Xml.document("ListBucketResult")
          .element("Name", r.bucket)
          .element("Prefix", enc(prefix == null ? "" : prefix, url))
          .element("Delimiter", enc(delimiter, url))
          .element("MaxKeys", maxKeys)
          .element("EncodingType", url ? "url" : null)
          .element("KeyCount", page.objects().size() + page.commonPrefixes().size())
          .element("IsTruncated", page.truncated())
          .element("ContinuationToken", token)
          .element("NextContinuationToken", page.truncated() ? page.nextContinuationToken() : null)
          .element("StartAfter", enc(startAfter, url));
      contents(xml, page, url, fetchOwner);
      return S3Response.xml(xml);
    });
  }

  CompletableFuture<S3Response> listV1(S3Request r) {
    boolean url = encodingType(r);
    int maxKeys = maxKeys(r);
    String prefix = r.param("prefix");
    String delimiter = delimiter(r);
    String marker = r.param("marker");
    ListRequest request = new ListRequest(r.bucket, prefix, delimiter, marker, null, maxKeys);
    return origin.list(request).thenApply(page -> {
      S3Xml xml = S3Xml.document("ListBucketResult")
          .element("Name", r.bucket)
          .element("Prefix", enc(prefix == null ? "" : prefix, url))
          .element("Marker", enc(marker == null ? "" : marker, url))
          .element("NextMarker", page.truncated() ? enc(page.lastEntry(), url) : null)
          .element("MaxKeys", maxKeys)
          .element("Delimiter", enc(delimiter, url))
          .element("EncodingType", url ? "url" : null)
          .element("IsTruncated", page.truncated());
      contents(xml, page, url, true);
      return S3Response.xml(xml);
    });
  }

  CompletableFuture<S3Response> listVersions(S3Request r) {
    boolean url = encodingType(r);
    int maxKeys = maxKeys(r);
    String prefix = r.param("prefix");
    String delimiter = delimiter(r);
    String keyMarker = r.param("key-marker");
    String versionIdMarker = r.param("version-id-marker");
    if (versionIdMarker != null && !versionIdMarker.isEmpty() && keyMarker == null) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "A version-id marker cannot be specified without a key marker.");
    }
    // With one version ("null") per key, resuming after (key-marker, any version) = after key-marker.
    ListRequest request = new ListRequest(r.bucket, prefix, delimiter, keyMarker, null, maxKeys);
    return origin.list(request).thenApply(page -> {
      S3Xml xml = S3Xml.document("ListVersionsResult")
          .element("Name", r.bucket)
          .element("Prefix", enc(prefix == null ? "" : prefix, url))
          .element("KeyMarker", enc(keyMarker == null ? "" : keyMarker, url))
          .element("VersionIdMarker", versionIdMarker == null ? "" : versionIdMarker)
          .element("NextKeyMarker", page.truncated() ? enc(page.lastEntry(), url) : null)
          .element("NextVersionIdMarker", page.truncated() ? Origin.NULL_VERSION : null)
          .element("MaxKeys", maxKeys)
          .element("Delimiter", enc(delimiter, url))
          .element("EncodingType", url ? "url" : null)
          .element("IsTruncated", page.truncated());
      for (ListedObject o : page.objects()) {
        xml.start("Version")
            .element("Key", enc(o.key(), url))
            .element("VersionId", Origin.NULL_VERSION)
            .element("IsLatest", true)
            .element("LastModified", S3Dates.xml(o.lastModified()))
            .element("ETag", o.etag())
            .element("Size", o.size())
            .element("StorageClass", "STANDARD");
        owner(xml);
        xml.end();
      }
      commonPrefixes(xml, page.commonPrefixes(), url);
      return S3Response.xml(xml);
    });
  }

  private static void contents(S3Xml xml, ListPage page, boolean url, boolean withOwner) {
    for (ListedObject o : page.objects()) {
      xml.start("Contents")
          .element("Key", enc(o.key(), url))
          .element("LastModified", S3Dates.xml(o.lastModified()))
          .element("ETag", o.etag())
          .element("Size", o.size())
          .element("StorageClass", "STANDARD");
      if (withOwner) {
        owner(xml);
      }
      xml.end();
    }
    commonPrefixes(xml, page.commonPrefixes(), url);
  }

  private static void commonPrefixes(S3Xml xml, List<String> prefixes, boolean url) {
    for (String p : prefixes) {
      xml.start("CommonPrefixes").element("Prefix", enc(p, url)).end();
    }
  }

  static void owner(S3Xml xml) {
    xml.start("Owner").element("ID", OWNER_ID).element("DisplayName", OWNER_ID).end();
  }

  static String enc(String value, boolean url) {
    return value == null || !url ? value : UriEncoding.encode(value, true);
  }

  /** The delimiter; an empty one is no delimiter, as on S3 (and is not echoed). */
  static String delimiter(S3Request r) {
    String delimiter = r.param("delimiter");
    return delimiter == null || delimiter.isEmpty() ? null : delimiter;
  }

  static boolean encodingType(S3Request r) {
    String type = r.param("encoding-type");
    if (type == null) {
      return false;
    }
    if (type.equals("url")) {
      return true;
    }
    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid Encoding Method specified in Request: " + type);
  }

  private static int maxKeys(S3Request r) {
    return r.param("max-keys") == null ? ListRequest.MAX_KEYS : intParam(r, "max-keys", 0, Integer.MAX_VALUE);
  }

  static int intParam(S3Request r, String name, int min, int max) {
    String value = r.param(name);
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
        "Provided " + name + " not an integer or within integer range [" + min + ", " + max + "]: " + value);
  }
}
