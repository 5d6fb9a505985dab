package io.verglas.ingest.validation;

/**
 * The largest batch a server accepts, in rows and in Arrow buffer bytes (as received,
 * uncompressed), and the largest string or binary cell in bytes. Larger batches are rejected
 * whole; clients split them.
 *
 * <p>The byte limit also caps each gRPC message ({@link #maxMessageBytes()}): gRPC reads a
 * message's length prefix before its body and refuses a longer message with RESOURCE_EXHAUSTED
 * without reading it, so a batch far over the limit costs no memory. The cap leaves
 * {@link #FRAMING_BYTES} above the limit for what a message carries besides the Arrow buffers
 * (the IPC header, 8-byte padding of each buffer, app metadata), so a batch within the limit
 * always fits, and one slightly over it reaches the validator and gets its precise message.
 */
public record BatchLimits(int maxRows, long maxBytes, int maxCellBytes) {
  public static final int MAX_ROWS_DEFAULT = 1_000_000;
  public static final long MAX_BYTES_DEFAULT = 64L << 20;
  public static final int MAX_CELL_BYTES_DEFAULT = 8 << 20;
  /**
   * Room in a message above the batch's buffers: under 100 bytes a column (its field node,
   * buffer entries and padding), so enough for over 10,000 columns.
   */
  public static final int FRAMING_BYTES = 1 << 20;

  public BatchLimits {
    if (maxRows <= 0) {
      throw new IllegalArgumentException("Invalid max batch rows: " + maxRows);
    }
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("Invalid max batch bytes: " + maxBytes);
    }
    if (maxCellBytes <= 0) {
      throw new IllegalArgumentException("Invalid max cell bytes: " + maxCellBytes);
    }
  }

  public BatchLimits(int maxRows, long maxBytes) {
    this(maxRows, maxBytes, MAX_CELL_BYTES_DEFAULT);
  }

  /** The most bytes one gRPC message to the server may announce: {@code maxBytes} + framing. */
  public int maxMessageBytes() {
    return (int) Math.min(Integer.MAX_VALUE, maxBytes + FRAMING_BYTES);
  }

  public static BatchLimits defaults() {
    return new BatchLimits(MAX_ROWS_DEFAULT, MAX_BYTES_DEFAULT, MAX_CELL_BYTES_DEFAULT);
  }
}
