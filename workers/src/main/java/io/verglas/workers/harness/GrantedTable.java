package io.verglas.workers.harness;

import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableDelta;
import io.verglas.sdk.TableSnapshot;
import io.verglas.table.TableIdentifiers;
import io.verglas.workers.api.WorkerTable;
import java.util.Iterator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;

/** A table a run may read (and, if granted, write): the SDK's verbs, commits keyed by the run. */
final class GrantedTable implements WorkerTable {
  private final TableClient client;
  private final RunContext run;

  GrantedTable(TableClient client, RunContext run) {
    this.client = client;
    this.run = run;
  }

  @Override
  public TableIdentifier identifier() {
    return client.identifier();
  }

  @Override
  public long commit(Iterable<?> rows) {
    run.checkWrite(client.identifier());
    String key = run.nextCommitKey();
    long[] count = {0};
    Iterable<?> counted = () -> new Iterator<Object>() {
      private final Iterator<?> it = rows.iterator();

      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Object next() {
        count[0]++;
        return it.next();
      }
    };
    long snapshot = client.commit(counted, key);
    run.committed(TableIdentifiers.toString(client.identifier()), count[0], snapshot, key);
    return snapshot;
  }

  @Override
  public TableSnapshot snapshot() {
    return client.snapshot();
  }

  @Override
  public QueryAnswer rows(long snapshotId, Expression filter) {
    return client.rows(snapshotId, filter);
  }

  @Override
  public TableDelta delta(Long fromSnapshotId, long toSnapshotId) {
    return client.delta(fromSnapshotId, toSnapshotId);
  }
}
