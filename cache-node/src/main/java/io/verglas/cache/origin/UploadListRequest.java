package io.verglas.cache.origin;

import java.util.Objects;

/**
 * One page of ListMultipartUploads: uploads in progress in (key, upload id) order.
 *
 * @param prefix only uploads whose key starts with it (never null; "" for all)
 * @param keyMarker resume after this key (with {@code uploadIdMarker}: after that upload of
 *     the key); null to start at the beginning
 * @param uploadIdMarker with {@code keyMarker}, the last upload id of the previous page; null
 * @param maxUploads at most this many uploads (0..1000)
 */
public record UploadListRequest(String bucket, String prefix, String keyMarker, String uploadIdMarker,
    int maxUploads) {
  public static final int MAX_UPLOADS = 1000;

  public UploadListRequest {
    Objects.requireNonNull(bucket, "bucket");
    prefix = prefix == null ? "" : prefix;
    keyMarker = keyMarker == null || keyMarker.isEmpty() ? null : keyMarker;
    uploadIdMarker = keyMarker == null || uploadIdMarker == null || uploadIdMarker.isEmpty() ? null : uploadIdMarker;
    if (maxUploads < 0 || maxUploads > MAX_UPLOADS) {
      throw new IllegalArgumentException("Invalid max-uploads: " + maxUploads + " (must be 0.." + MAX_UPLOADS + ")");
    }
  }

  /** True if an upload of {@code key} with {@code uploadId} comes after the markers. */
  public boolean isAfterMarkers(String key, String uploadId) {
    if (keyMarker == null) {
      return true;
    }
    int byKey = KeyOrder.compare(key, keyMarker);
    return byKey > 0 || (byKey == 0 && uploadIdMarker != null && uploadId.compareTo(uploadIdMarker) > 0);
  }
}
