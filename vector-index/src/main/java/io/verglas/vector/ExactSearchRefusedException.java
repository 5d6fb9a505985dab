package io.verglas.vector;

/** A snapshot without a usable index is larger than the exact-search limit allows. */
public final class ExactSearchRefusedException extends RuntimeException {
  private final long rows;
  private final long limit;

  public ExactSearchRefusedException(String table, long snapshotId, String reason, long rows,
      long limit) {
    super("Cannot search " + table + " at snapshot " + snapshotId + ": " + reason + ", and its "
        + rows + " rows exceed the exact-search limit of " + limit);
    this.rows = rows;
    this.limit = limit;
  }

  public long rows() { return rows; }
  public long limit() { return limit; }
}
