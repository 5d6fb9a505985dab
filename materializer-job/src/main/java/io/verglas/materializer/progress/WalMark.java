package io.verglas.materializer.progress;

/**
 * What of one stream is committed to one table: every row of this table in the segments with
 * sequence {@code <= fullThrough}, plus the first {@code partialRows} rows of segment
 * {@code fullThrough + 1}. {@code fullThrough = -1} means no complete segment yet.
 *
 * <p>Design: a checkpoint can end in the middle of a segment, so the highest sequence alone
 * would either claim rows that are not committed yet (then a restart would skip them) or forget
 * rows that are (then a restart would commit them twice). Keeping the complete prefix apart
 * from the partial tail makes the plain {@code verglas.wal.<stream>} summary value safe for any
 * reader: everything up to it is committed.
 */
public record WalMark(long fullThrough, long partialRows) {
  public static final WalMark NONE = new WalMark(-1, 0);

  public WalMark {
    if (fullThrough < -1 || partialRows < 0) {
      throw new IllegalArgumentException("Invalid WAL mark: " + fullThrough + "+" + partialRows);
    }
  }

  /** True when row {@code ordinal} of segment {@code sequence} is committed. */
  public boolean covers(long sequence, long ordinal) {
    return sequence <= fullThrough || (sequence == fullThrough + 1 && ordinal < partialRows);
  }

  /** True when everything {@code progress} reaches is committed. */
  public boolean covers(SegmentProgress progress) {
    if (progress.sequence() <= fullThrough) {
      return true;
    }
    return progress.sequence() == fullThrough + 1 && progress.rowsThrough() <= partialRows;
  }

  /** True when every row of segment {@code sequence} (of {@code rowCount} rows) is committed. */
  public boolean coversSegment(long sequence, long rowCount) {
    return sequence <= fullThrough
        || (sequence == fullThrough + 1 && rowCount > 0 && partialRows >= rowCount);
  }

  /** The one of {@code a} and {@code b} that covers more (marks of one stream are ordered). */
  public static WalMark later(WalMark a, WalMark b) {
    if (a.fullThrough != b.fullThrough) {
      return a.fullThrough > b.fullThrough ? a : b;
    }
    return a.partialRows >= b.partialRows ? a : b;
  }

  /**
   * The mark after also committing {@code progress}. Segments of a stream are consumed in order,
   * so reaching into segment N means every row of this table before N is committed.
   */
  public WalMark advance(SegmentProgress progress) {
    long sequence = progress.sequence();
    if (progress.complete()) {
      return sequence > fullThrough ? new WalMark(sequence, 0) : this;
    }
    if (sequence - 1 > fullThrough) {
      return new WalMark(sequence - 1, progress.rowsThrough());
    }
    if (sequence - 1 == fullThrough) {
      return new WalMark(fullThrough, Math.max(partialRows, progress.rowsThrough()));
    }
    return this;
  }
}
