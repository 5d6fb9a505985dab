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
  /**
   * Snapshot summary key: the idempotency keys of the batches the commit made durable in the
   * table, as a JSON array of strings (cut at a bounded size; see the count).
   */
  public static final String SUMMARY_IDEMPOTENCY_KEYS = "verglas.idempotency-keys";
  /** Snapshot summary key: how many keyed batches the commit made durable (all of them). */
  public static final String SUMMARY_IDEMPOTENCY_KEY_COUNT = "verglas.idempotency-key-count";

  private VerglasTableProperties() {}
}
