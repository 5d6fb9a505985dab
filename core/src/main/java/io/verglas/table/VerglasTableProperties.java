package io.verglas.table;

/** Table properties Verglas sets or reads, with their defaults. */
public final class VerglasTableProperties {
  /** Marks a table created through Verglas (the materializer serves only such tables). */
  public static final String MANAGED = "verglas.managed";
  public static final String FORMAT_VERSION_DEFAULT = "3";

  /** Snapshot summary key prefix for committed WAL positions: {@code verglas.wal.<stream>}. */
  public static final String SUMMARY_WAL_PREFIX = "verglas.wal.";
  public static final String SUMMARY_JOB_ID = "verglas.job-id";
  public static final String SUMMARY_CHECKPOINT_ID = "verglas.checkpoint-id";

  private VerglasTableProperties() {}
}
