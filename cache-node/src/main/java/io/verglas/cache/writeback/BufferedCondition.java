package io.verglas.cache.writeback;

import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.writeback.journal.JournalRecord;

/**
 * A write's precondition evaluated against the key's latest buffered change instead of the
 * origin: what a GET through this node shows (a buffered write exists with its ETag, a buffered
 * delete does not). Answers as the origin would: 412 for a failed condition, NoSuchKey for
 * {@code If-Match} on a missing key. A pure check: no I/O.
 */
final class BufferedCondition {
  private BufferedCondition() {}

  /** Throws the origin's error when {@code condition} does not hold for {@code latest}. */
  static void require(WriteCondition condition, JournalRecord.Pending latest) {
    String name = latest.identity().bucket() + "/" + latest.identity().key();
    if (condition.mustNotExist() && latest instanceof JournalRecord.Staged) {
      throw new OriginException(OriginException.Reason.PRECONDITION_FAILED, "At least one of the pre-conditions "
          + "you specified did not hold: " + name + " exists (If-None-Match: *; a buffered write)");
    }
    if (condition.ifMatchEtag() == null) {
      return;
    }
    if (!(latest instanceof JournalRecord.Staged staged)) {
      throw new OriginException(OriginException.Reason.NO_SUCH_KEY, "The specified key does not exist: "
          + latest.identity().key() + " (If-Match " + condition.ifMatchEtag() + "; a buffered delete)");
    }
    String etag = WriteBackMetadata.etag(staged);
    if (!ETags.matches(etag, condition.ifMatchEtag())) {
      throw new OriginException(OriginException.Reason.PRECONDITION_FAILED, "At least one of the pre-conditions "
          + "you specified did not hold: If-Match " + condition.ifMatchEtag() + " but the current ETag of " + name
          + " is " + etag + " (a buffered write)");
    }
  }
}
