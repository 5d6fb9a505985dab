package io.verglas.cache.origin;

import java.time.Instant;
import java.util.List;

/**
 * A page of ListMultipartUploads. If {@code truncated}, the next page starts after
 * ({@code nextKeyMarker}, {@code nextUploadIdMarker}), the last upload of this one.
 */
public record UploadListing(List<Upload> uploads, boolean truncated, String nextKeyMarker,
    String nextUploadIdMarker) {

  /** An upload in progress. */
  public record Upload(String key, String uploadId, Instant initiated) {}

  public UploadListing {
    uploads = List.copyOf(uploads);
  }

  /** The page of {@code sorted} (all matching uploads, in order) that {@code request} asks for. */
  public static UploadListing page(List<Upload> sorted, UploadListRequest request) {
    List<Upload> after = sorted.stream()
        .filter(u -> u.key().startsWith(request.prefix()))
        .filter(u -> request.isAfterMarkers(u.key(), u.uploadId()))
        .toList();
    List<Upload> page = after.subList(0, Math.min(after.size(), request.maxUploads()));
    boolean truncated = after.size() > page.size();
    Upload last = page.isEmpty() ? null : page.get(page.size() - 1);
    return new UploadListing(page, truncated, last == null ? null : last.key(),
        last == null ? null : last.uploadId());
  }
}
