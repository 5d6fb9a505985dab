package io.verglas.workers.harness;

import io.cloudevents.CloudEvent;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.TableIdentifiers;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.WorkerContext;
import io.verglas.workers.api.WorkerLog;
import io.verglas.workers.api.WorkerTable;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The {@link WorkerContext} of one run, in the run's process: tables through the grant check,
 * commits keyed by their ordinal in the run, every commit reported to the harness.
 */
final class RunContext implements WorkerContext {
  private final RunSpec spec;
  private final VerglasClient client;
  private final RunReporter reporter;
  private int commits;
  private long rowsCommitted;

  RunContext(RunSpec spec, VerglasClient client, RunReporter reporter) {
    this.spec = spec;
    this.client = client;
    this.reporter = reporter;
  }

  @Override
  public String deployment() {
    return spec.deployment().name();
  }

  @Override
  public CloudEvent trigger() {
    return spec.event();
  }

  @Override
  public WorkerTable table(String table) {
    TableIdentifier identifier = TableIdentifiers.identifier(table);
    grants().checkRead(identifier);
    return new GrantedTable(client.table(identifier), this);
  }

  @Override
  public WorkerTable output(String name) {
    String table = spec.deployment().outputs().get(name);
    if (table == null) {
      throw new IllegalArgumentException("Cannot find output '" + name + "' of deployment "
          + deployment() + " (outputs: " + spec.deployment().outputs().keySet() + ")");
    }
    return table(table);
  }

  @Override
  public Map<String, String> outputs() {
    return spec.deployment().outputs();
  }

  @Override
  public Map<String, String> config() {
    return spec.deployment().config();
  }

  @Override
  public String secret(String name) {
    String value = spec.deployment().secrets().get(name);
    if (value == null) {
      throw new IllegalArgumentException("Cannot find secret '" + name + "' of deployment "
          + deployment());
    }
    return value;
  }

  @Override
  public WorkerLog log() {
    return reporter;
  }

  DataGrants grants() {
    return spec.deployment().grants();
  }

  /** The key of the next commit; commits of one run are numbered in the order they start. */
  synchronized String nextCommitKey() {
    return spec.commitKey(commits++);
  }

  synchronized void committed(String table, long rows, long snapshotId, String key) {
    rowsCommitted += rows;
    reporter.committed(table, rows, snapshotId, key);
  }

  synchronized int commits() {
    return commits;
  }

  synchronized long rowsCommitted() {
    return rowsCommitted;
  }
}
