package io.verglas.materializer.progress;

import java.util.Objects;

/**
 * How far into one WAL segment a set of rows reaches: its stream and sequence, the number of its
 * leading rows that are covered ({@code rowsThrough}) and its total row count.
 *
 * <p>The source emits a stream's rows strictly in (sequence, row) order and never has two
 * segments of one stream in flight, so the rows that fall into one checkpoint are always a
 * contiguous range of the stream. That is why the highest row reached is enough to describe what
 * a checkpoint covers.
 */
public record SegmentProgress(String streamId, long sequence, long rowsThrough, long rowCount) {
  public SegmentProgress {
    Objects.requireNonNull(streamId, "streamId");
    if (sequence < 0 || rowsThrough < 0 || rowsThrough > rowCount) {
      throw new IllegalArgumentException("Invalid segment progress: sequence " + sequence
          + ", rows " + rowsThrough + " of " + rowCount);
    }
  }

  /** True when every row of the segment is covered. */
  public boolean complete() {
    return rowsThrough == rowCount;
  }

  /** The progress that covers both this and {@code other} (same segment). */
  public SegmentProgress max(SegmentProgress other) {
    if (!streamId.equals(other.streamId) || sequence != other.sequence) {
      throw new IllegalArgumentException("Cannot merge progress of different segments: "
          + this + " and " + other);
    }
    return rowsThrough >= other.rowsThrough ? this : other;
  }
}
