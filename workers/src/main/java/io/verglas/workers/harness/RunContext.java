package io.verglas.workers.harness;

import io.cloudevents.CloudEvent;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.QueuePosition;
import io.verglas.sdk.QueueClient;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.TableIdentifiers;
import io.verglas.workers.api.DataGrantException;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.WorkerContext;
import io.verglas.workers.api.WorkerLog;
import io.verglas.workers.api.WorkerTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The {@link WorkerContext} of one run, in the run's process: tables and queues through the
 * grant checks (a refusal is also logged), commits keyed by their ordinal in the run and by the
 * messages consumed before them, every commit reported to the harness.
 */
final class RunContext implements WorkerContext, AutoCloseable {
  private final RunSpec spec;
  private final VerglasClient client;
  private final RunReporter reporter;
  private final StringBuilder consumed = new StringBuilder();
  private QueueClient queues;
  private int commits;
  private int publishes;
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
    granted(() -> grants().checkRead(identifier));
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
  public QueuePosition publish(String queue, List<QueueMessage> messages) {
    granted(() -> grants().queues().checkPublish(deployment(), queue));
    int ordinal;
    synchronized (this) {
      ordinal = publishes++;
    }
    List<QueueMessage> keyed = new ArrayList<>(messages.size());
    for (QueueMessage m : messages) {
      keyed.add(m.key() != null ? m : new QueueMessage(CommitKeys.message(deployment(),
          spec.identity(), ordinal, keyed.size()), m.payload(), m.headers()));
    }
    return queues().publish(queue, keyed);
  }

  @Override
  public int consume(String queue, String group, QueueClient.Handler handler) {
    granted(() -> grants().queues().checkConsume(deployment(), queue));
    return queues().consume(queue, group, messages -> {
      if (!messages.isEmpty()) {
        consumed(queue, messages.get(0).position(), messages.get(messages.size() - 1).position());
      }
      handler.handle(messages);
    });
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

  private synchronized void consumed(String queue, QueuePosition first, QueuePosition last) {
    consumed.append('/').append(queue).append('@').append(first).append('-').append(last);
  }

  /** @throws DataGrantException (logged) if the deployment may not write {@code table} */
  void checkWrite(TableIdentifier table) {
    granted(() -> grants().checkWrite(table));
  }

  /** Runs a grant check; a refusal goes to the run's log as well as to the worker. */
  private void granted(Runnable check) {
    try {
      check.run();
    } catch (DataGrantException e) {
      reporter.error(e.getMessage());
      throw e;
    }
  }

  private synchronized QueueClient queues() {
    if (queues == null) {
      queues = spec.endpoints().queueClient();
    }
    return queues;
  }

  /**
   * The key of the next commit; commits of one run are numbered in the order they start, and
   * once the run consumed messages the key names them too.
   */
  synchronized String nextCommitKey() {
    int ordinal = commits++;
    return consumed.isEmpty() ? spec.commitKey(ordinal)
        : CommitKeys.commit(deployment(), spec.identity() + "/q" + consumed, ordinal);
  }

  @Override
  public synchronized void close() {
    if (queues != null) {
      queues.close();
    }
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
