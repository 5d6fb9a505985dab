package io.verglas.materializer.source;

import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One WAL segment to read, and how many of its rows were already emitted. Immutable: progress
 * is recorded by returning a copy.
 */
public final class WalSplit implements SourceSplit {
  private final String key;
  private final String streamId;
  private final long sequence;
  private final long rowsEmitted;

  public WalSplit(String key, String streamId, long sequence, long rowsEmitted) {
    this.key = Objects.requireNonNull(key, "key");
    this.streamId = Objects.requireNonNull(streamId, "streamId");
    if (sequence < 0 || rowsEmitted < 0) {
      throw new IllegalArgumentException("Invalid split of " + key + ": sequence " + sequence
          + ", rows emitted " + rowsEmitted);
    }
    this.sequence = sequence;
    this.rowsEmitted = rowsEmitted;
  }

  @Override
  public String splitId() {
    return key;
  }

  public String key() {
    return key;
  }

  public String streamId() {
    return streamId;
  }

  public long sequence() {
    return sequence;
  }

  /** Rows with an ordinal below this were emitted before the last checkpoint. */
  public long rowsEmitted() {
    return rowsEmitted;
  }

  public WalSplit withRowsEmitted(long rows) {
    return new WalSplit(key, streamId, sequence, rows);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WalSplit other && key.equals(other.key) && streamId.equals(other.streamId)
        && sequence == other.sequence && rowsEmitted == other.rowsEmitted;
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, streamId, sequence, rowsEmitted);
  }

  @Override
  public String toString() {
    return "WalSplit{" + key + ", emitted=" + rowsEmitted + "}";
  }
}
