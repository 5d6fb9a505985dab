package io.verglas.materializer.keyindex;

import io.verglas.wal.WalPosition;

/**
 * The key index entry of one primary key: which WAL row is the materialized version and where
 * it lives (data file and row position), or a tombstone when the newest version is a
 * delete. Tombstones stay so that an older row arriving late (from a stream that lags) still
 * loses to the delete.
 *
 * <p>The index stores it in pages ({@link IndexPageCodec}); builds before the pages wrote one
 * per key with {@link KeyEntrySerializer}, and earlier builds still with Flink's POJO
 * serializer: it stays a Flink POJO so that such state is read back when it is restored and
 * moved into pages.
 */
public class KeyEntry {
  public long hlc;
  public String streamId;
  public long sequence;
  public int batch;
  public int row;
  /**
   * The data file holding the live version, relative to the table location when under it
   * ({@link IndexedPaths}); null for a tombstone.
   */
  public String dataFile;
  /** Row position of the live version in {@link #dataFile}. */
  public long filePosition;
  public boolean deleted;

  public KeyEntry() {}

  public static KeyEntry live(WalPosition position, String dataFile, long filePosition) {
    KeyEntry entry = at(position);
    entry.dataFile = dataFile;
    entry.filePosition = filePosition;
    return entry;
  }

  public static KeyEntry tombstone(WalPosition position) {
    KeyEntry entry = at(position);
    entry.deleted = true;
    return entry;
  }

  private static KeyEntry at(WalPosition position) {
    KeyEntry entry = new KeyEntry();
    entry.hlc = position.hlc();
    entry.streamId = position.streamId();
    entry.sequence = position.sequence();
    entry.batch = position.batch();
    entry.row = position.row();
    return entry;
  }

  /** Takes every field of {@code other}. */
  void set(KeyEntry other) {
    hlc = other.hlc;
    streamId = other.streamId;
    sequence = other.sequence;
    batch = other.batch;
    row = other.row;
    dataFile = other.dataFile;
    filePosition = other.filePosition;
    deleted = other.deleted;
  }

  KeyEntry copy() {
    KeyEntry copy = new KeyEntry();
    copy.set(this);
    return copy;
  }

  public WalPosition walPosition() {
    return new WalPosition(hlc, streamId, sequence, batch, row);
  }

  @Override
  public String toString() {
    return deleted ? "KeyEntry{deleted @" + walPosition() + "}"
        : "KeyEntry{" + dataFile + "#" + filePosition + " @" + walPosition() + "}";
  }
}
