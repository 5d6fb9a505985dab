package io.verglas.maintenance.job;

import io.verglas.events.EventPublisher;
import io.verglas.maintenance.compact.CompactionResult;
import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.expire.SnapshotExpirer;
import io.verglas.maintenance.manifest.ManifestRewriter;
import io.verglas.maintenance.orphan.OrphanFileRemover;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.maintenance.policy.MaintenancePolicyParser;
import io.verglas.maintenance.status.MaintenanceStatus;
import io.verglas.table.TableIdentifiers;
import java.io.Closeable;
import java.time.Clock;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keyed by table, so one table's work is serialized; the operator's parallelism bounds how many
 * tables are maintained at once. Per item: compaction by the table's policy (unless its last
 * maintenance commit is younger than its rewrite pause), merging of small manifests, expiry when it holds more snapshots
 * than the policy keeps, and orphan removal on sweeps. A failure is reported for that table;
 * it never fails the job.
 */
public final class MaintenanceWorker
    extends KeyedProcessFunction<String, WorkItem, MaintenanceReport> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceWorker.class);

  private final MaintenanceConfig config;
  private transient Catalog catalog;
  private transient EventPublisher publisher;
  private transient Compactor compactor;
  private transient ManifestRewriter manifestRewriter;
  private transient SnapshotExpirer expirer;
  private transient OrphanFileRemover orphans;
  private transient Clock clock;

  public MaintenanceWorker(MaintenanceConfig config) {
    this.config = config;
  }

  @Override
  public void open(OpenContext context) {
    clock = Clock.systemUTC();
    catalog = config.newCatalog();
    publisher = config.newEventPublisher();
    MaintenanceEvents events = new MaintenanceEvents(publisher);
    compactor = new Compactor(events);
    manifestRewriter = new ManifestRewriter(events);
    expirer = new SnapshotExpirer(clock, events);
    orphans = new OrphanFileRemover(clock, events, catalog);
  }

  @Override
  public void processElement(WorkItem item, Context ctx, Collector<MaintenanceReport> out) {
    long start = clock.millis();
    try {
      out.collect(maintain(item, start));
    } catch (NoSuchTableException e) {
      out.collect(report(item, "table dropped", start));
    } catch (RuntimeException e) {
      LOG.warn("Cannot maintain table {}: {}", item.table(), e.toString(), e);
      out.collect(report(item, "failed: " + e, start));
    }
  }

  private MaintenanceReport maintain(WorkItem item, long start) {
    TableIdentifier name = TableIdentifiers.identifier(item.table());
    Table table = catalog.loadTable(name);
    MaintenancePolicy policy = MaintenancePolicyParser.fromProperties(table.properties());
    if (!policy.enabled()) {
      return report(item, "maintenance disabled by table property", start);
    }
    CompactionResult compaction = null;
    String note = null;
    if (pauseElapsed(table, policy, start)) {
      compaction = compactor.compact(name, table, policy);
    } else {
      note = "compaction deferred: rewrite pause";
    }
    boolean manifests = manifestRewriter.rewrite(name, table, policy).isPresent();
    int expired = 0;
    if (MaintenanceStatus.snapshotCount(table) > policy.snapshotMinCount()) {
      expired = expirer.expire(name, table, policy).expired();
    }
    int removed = item.sweep() ? orphans.remove(name, table, policy).size() : 0;
    return new MaintenanceReport(item.table(), compaction == null ? 0 : compaction.commits(),
        compaction == null ? 0 : compaction.conflicts(),
        compaction == null ? 0 : compaction.filesRewritten(), manifests, expired, removed, note,
        clock.millis() - start);
  }

  private static boolean pauseElapsed(Table table, MaintenancePolicy policy, long now) {
    Snapshot last = MaintenanceStatus.lastMaintenance(table);
    return last == null || now - last.timestampMillis() >= policy.rewritePause().toMillis();
  }

  private MaintenanceReport report(WorkItem item, String note, long start) {
    return new MaintenanceReport(item.table(), 0, 0, 0, false, 0, 0, note,
        clock.millis() - start);
  }

  @Override
  public void close() throws Exception {
    if (publisher != null) {
      publisher.close();
    }
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
  }
}
