package io.verglas.ingest.validation;

/**
 * The largest batch a server accepts, in rows and in Arrow buffer bytes (as received,
 * uncompressed), and the largest string or binary cell in bytes. Larger batches are rejected
 * whole; clients split them.
 */
public record BatchLimits(int maxRows, long maxBytes, int maxCellBytes) {
  public static final int MAX_ROWS_DEFAULT = 1_000_000;
  public static final long MAX_BYTES_DEFAULT = 64L << 20;
  public static final int MAX_CELL_BYTES_DEFAULT = 8 << 20;

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

  public static BatchLimits defaults() {
    return new BatchLimits(MAX_ROWS_DEFAULT, MAX_BYTES_DEFAULT, MAX_CELL_BYTES_DEFAULT);
  }
}
