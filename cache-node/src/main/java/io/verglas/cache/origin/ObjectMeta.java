package io.verglas.cache.origin;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What an origin knows about the current version of an object.
 *
 * @param etag quoted ETag, as S3 sends it
 * @param size content length in bytes
 * @param lastModified last modification time
 * @param contentType MIME type stored with the object (never null)
 * @param userMetadata {@code x-amz-meta-*} entries, names lower case without the prefix
 * @param contentHeaders other stored standard headers (cache-control, content-disposition,
 *     content-encoding, content-language, expires), names lower case
 */
public record ObjectMeta(
    String etag,
    long size,
    Instant lastModified,
    String contentType,
    Map<String, String> userMetadata,
    Map<String, String> contentHeaders) {

  public static final String DEFAULT_CONTENT_TYPE = "binary/octet-stream";

  public ObjectMeta {
    Objects.requireNonNull(etag, "etag");
    Objects.requireNonNull(lastModified, "lastModified");
    if (size < 0) {
      throw new IllegalArgumentException("Invalid object size: " + size);
    }
    contentType = contentType == null ? DEFAULT_CONTENT_TYPE : contentType;
    userMetadata = userMetadata == null ? Map.of() : sortedCopy(userMetadata);
    contentHeaders = contentHeaders == null ? Map.of() : sortedCopy(contentHeaders);
  }

  private static Map<String, String> sortedCopy(Map<String, String> map) {
    return map.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(map));
  }
}
