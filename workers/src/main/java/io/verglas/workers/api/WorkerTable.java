package io.verglas.workers.api;

import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.TableDelta;
import io.verglas.sdk.TableSnapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;

/**
 * A granted table as a worker sees it: the SDK's table verbs, with commits keyed by the
 * harness. See {@link io.verglas.sdk.TableClient} for what each verb does.
 */
public interface WorkerTable {
  TableIdentifier identifier();

  /**
   * Commits {@code rows} (maps or records) and returns the first snapshot holding them. The
   * idempotency key is derived from the deployment, the trigger's identity and this commit's
   * ordinal in the run, so the same commit of a re-dispatched run changes nothing.
   *
   * @throws DataGrantException if the deployment may not write this table
   */
  long commit(Iterable<?> rows);

  /** The table's current snapshot, or null when it has none. */
  TableSnapshot snapshot();

  /** The rows of a snapshot matching {@code filter} (null for all). */
  QueryAnswer rows(long snapshotId, Expression filter);

  /** Rows inserted, updated and deleted between two snapshots. */
  TableDelta delta(Long fromSnapshotId, long toSnapshotId);
}
