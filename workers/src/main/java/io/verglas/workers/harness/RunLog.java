package io.verglas.workers.harness;

import io.verglas.sdk.TableRows;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.workers.systable.SystemTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * The deployments' run logs: table {@code verglas_sys.<deployment>_logs} (the deployment's
 * {@code _LOGS} table), append-only, one row per {@link RunEvent}, created on first use.
 *
 * <p>Design. Events are pushed through the harness's own client (the run's process is not
 * trusted to write them, and a killed process could not write its own end), each as a batch
 * keyed by (run id, sequence): a resent batch is applied once. Appends do not wait for their
 * acknowledgement; {@link Writer#close()} does, so a run's outcome is returned only after its
 * log is durable in the WAL (the materializer makes it a table row like any other).
 */
final class RunLog {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "run", Types.StringType.get()),
      Types.NestedField.required(2, "seq", Types.IntegerType.get()),
      Types.NestedField.required(3, "deployment", Types.StringType.get()),
      Types.NestedField.required(4, "trigger", Types.StringType.get()),
      Types.NestedField.required(5, "attempt", Types.IntegerType.get()),
      Types.NestedField.required(6, "time", Types.TimestampType.withZone()),
      Types.NestedField.required(7, "kind", Types.StringType.get()),
      Types.NestedField.optional(8, "level", Types.StringType.get()),
      Types.NestedField.optional(9, "table_name", Types.StringType.get()),
      Types.NestedField.optional(10, "rows", Types.LongType.get()),
      Types.NestedField.optional(11, "snapshot_id", Types.LongType.get()),
      Types.NestedField.optional(12, "idempotency_key", Types.StringType.get()),
      Types.NestedField.optional(13, "message", Types.StringType.get()));

  private final VerglasClient client;
  private final Set<TableIdentifier> created = ConcurrentHashMap.newKeySet();

  RunLog(VerglasClient client) {
    this.client = client;
  }

  /** The logs table of {@code deployment}. */
  static TableIdentifier table(String deployment) {
    return SystemTables.table(deployment + "_logs");
  }

  Writer open(RunSpec spec) {
    TableIdentifier table = table(spec.deployment().name());
    if (created.add(table)) {
      create(table);
    }
    return new Writer(spec, table);
  }

  private void create(TableIdentifier table) {
    try {
      SystemTables.ensure(client, table, SCHEMA, List.of());
    } catch (RuntimeException e) {
      created.remove(table);
      throw e;
    }
  }

  /** The log of one run. Thread-safe: the harness and the run's output reader both append. */
  final class Writer implements AutoCloseable {
    private final RunSpec spec;
    private final TableIdentifier table;
    private final TableWriter writer;
    private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
    private final List<CompletableFuture<?>> acks = new ArrayList<>();
    private int seq;

    private Writer(RunSpec spec, TableIdentifier table) {
      this.spec = spec;
      this.table = table;
      this.arrowSchema = client.tableSchema(table);
      this.writer = client.openWriter(table);
    }

    synchronized void append(RunEvent event) {
      int n = seq++;
      try (TableRows rows = TableRows.forSchema(arrowSchema, client.allocator())) {
        rows.add(row(event, n));
        try (VectorSchemaRoot batch = rows.build()) {
          acks.add(writer.write(batch, CommitKeys.logEvent(spec.runId(), n)));
        }
      }
    }

    private Map<String, Object> row(RunEvent event, int n) {
      Map<String, Object> row = new HashMap<>();
      row.put("run", spec.runId());
      row.put("seq", n);
      row.put("deployment", spec.deployment().name());
      row.put("trigger", spec.identity());
      row.put("attempt", spec.attempt());
      row.put("time", event.time());
      row.put("kind", event.kind().name().toLowerCase(java.util.Locale.ROOT));
      row.put("level", event.level());
      row.put("table_name", event.table());
      row.put("rows", event.rows());
      row.put("snapshot_id", event.snapshotId());
      row.put("idempotency_key", event.key());
      row.put("message", event.message());
      return row;
    }

    /** Waits until every event appended is durable; throws the first failure. */
    @Override
    public void close() {
      try {
        writer.close();
      } finally {
        synchronized (this) {
          acks.forEach(CompletableFuture::join);
        }
      }
    }

    TableIdentifier table() {
      return table;
    }
  }
}
