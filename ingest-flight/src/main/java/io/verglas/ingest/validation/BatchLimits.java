package io.verglas.ingest.validation;

/**
 * The largest batch a server accepts, in rows and in Arrow buffer bytes (as received,
 * uncompressed). Larger batches are rejected whole; clients split them.
 */
public record BatchLimits(int maxRows, long maxBytes) {
  public static final int MAX_ROWS_DEFAULT = 1_000_000;
  public static final long MAX_BYTES_DEFAULT = 64L << 20;

  public BatchLimits {
    if (maxRows <= 0) {
      throw new IllegalArgumentException("Invalid max batch rows: " + maxRows);
    }
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("Invalid max batch bytes: " + maxBytes);
    }
  }

  public static BatchLimits defaults() {
    return new BatchLimits(MAX_ROWS_DEFAULT, MAX_BYTES_DEFAULT);
  }
}
