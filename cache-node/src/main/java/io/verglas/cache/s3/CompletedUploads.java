package io.verglas.cache.s3;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.ETags;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Multipart uploads this node completed recently, so that a repeated CompleteMultipartUpload
 * (an SDK retry after a lost response) answers the first result instead of NoSuchUpload, as S3
 * does. A repeat counts only with the same bucket, key and part list; anything else goes to the
 * origin, which answers NoSuchUpload.
 *
 * <p>Memory: at most {@link #MAX_ENTRIES} entries of a few dozen bytes each (the part list is
 * kept as a SHA-256 digest), least recently used first out. A node restart forgets them; the
 * local directory origin also keeps a durable record of its own.
 */
final class CompletedUploads {
  static final int MAX_ENTRIES = 10_000;

  private record Completed(String bucket, String key, String partsDigest, String etag) {}

  private final Cache<String, Completed> completed =
      Caffeine.newBuilder().maximumSize(MAX_ENTRIES).executor(Runnable::run).build();

  void remember(String bucket, String key, String uploadId, List<CompletedPart> parts, String etag) {
    completed.put(uploadId, new Completed(bucket, key, digest(parts), etag));
  }

  /**
   * The ETag of the earlier completion of this very request; null if this node did not complete
   * the upload. Throws NoSuchUpload for another request on an upload it completed (stores differ
   * there: s3proxy completes an upload again).
   */
  String repeated(String bucket, String key, String uploadId, List<CompletedPart> parts) {
    Completed c = completed.getIfPresent(uploadId);
    if (c == null) {
      return null;
    }
    if (!c.bucket().equals(bucket) || !c.key().equals(key) || !c.partsDigest().equals(digest(parts))) {
      throw noSuchUpload(uploadId);
    }
    return c.etag();
  }

  /** Throws NoSuchUpload if this node completed the upload (UploadPart, ListParts, Abort). */
  void requireNotCompleted(String uploadId) {
    if (completed.getIfPresent(uploadId) != null) {
      throw noSuchUpload(uploadId);
    }
  }

  /**
   * Refuses a part list that is not in ascending order (after {@link #lastOfEachNumber}) before
   * the origin sees it, as S3 does; not every store checks.
   */
  static void checkOrder(List<CompletedPart> parts) {
    for (int i = 1; i < parts.size(); i++) {
      if (parts.get(i).partNumber() < parts.get(i - 1).partNumber()) {
        throw new S3Exception(S3ErrorCode.INVALID_PART_ORDER,
            "The list of parts was not in ascending order. The parts list must be specified in"
                + " order by part number: part " + parts.get(i).partNumber() + " after part "
                + parts.get(i - 1).partNumber());
      }
    }
  }

  private static S3Exception noSuchUpload(String uploadId) {
    return new S3Exception(S3ErrorCode.NO_SUCH_UPLOAD,
        "The specified upload does not exist. The upload ID may be invalid, or the upload may have"
            + " been aborted or completed: " + uploadId);
  }

  /**
   * The part list S3 completes: a part number named more than once in a row (the client listed
   * a part and its re-upload) counts once, with its last ETag. Order is checked by the origin.
   */
  static List<CompletedPart> lastOfEachNumber(List<CompletedPart> parts) {
    List<CompletedPart> result = new ArrayList<>(parts.size());
    for (CompletedPart p : parts) {
      int last = result.size() - 1;
      if (last >= 0 && result.get(last).partNumber() == p.partNumber()) {
        result.set(last, p);
      } else {
        result.add(p);
      }
    }
    return result;
  }

  private static String digest(List<CompletedPart> parts) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (CompletedPart p : parts) {
        sha.update((p.partNumber() + ":" + ETags.bare(p.etag()) + "\n").getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JDK has no SHA-256", e);
    }
  }
}
