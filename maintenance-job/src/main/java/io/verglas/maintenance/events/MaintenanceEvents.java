package io.verglas.maintenance.events;

import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import io.verglas.events.TableMaintainedEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces maintenance on the change feed: commits (compaction, manifest rewrites) so caches
 * move heat to the new files, and expiry and orphan removal so caches drop the deleted ones. A
 * lost event is not fatal (the catalog poller sees every commit), so failures are logged.
 */
public final class MaintenanceEvents {
  public static final String SOURCE = "verglas/maintenance-job";
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceEvents.class);

  private final EventPublisher publisher;

  public MaintenanceEvents(EventPublisher publisher) {
    this.publisher = publisher;
  }

  public void committed(TableIdentifier name, Table table, Snapshot snapshot) {
    try {
      publisher.publish(event(name, table, snapshot));
    } catch (RuntimeException e) {
      LOG.warn("Cannot publish the event of maintenance snapshot {} of {}: {}",
          snapshot.snapshotId(), name, e.toString());
    }
  }

  /**
   * Announces an operation that created no snapshot: {@code operation} is one of {@link
   * TableMaintainedEvent}'s, {@code deleted} the locations of the files it deleted.
   */
  public void maintained(TableIdentifier name, Table table, String operation,
      List<Long> expiredSnapshotIds, Collection<String> deleted) {
    TableMaintainedEvent event = maintainedEvent(name, table, operation, expiredSnapshotIds,
        deleted);
    try {
      publisher.publish(event);
    } catch (RuntimeException e) {
      LOG.warn("Cannot publish the event {} of {}: {}", event.id(), name, e.toString());
    }
  }

  static CatalogEvent event(TableIdentifier name, Table table, Snapshot snapshot) {
    String uuid = table.uuid().toString();
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshot.snapshotId()), SOURCE,
        Instant.now(), levels(name), uuid, snapshot.snapshotId(), snapshot.parentId(),
        snapshot.operation(), snapshot.sequenceNumber(), snapshot.timestampMillis(),
        snapshot.summary(), metadataLocation(table), 0);
  }

  /** The commit id is drawn here, once per operation: a retried publish keeps the event id. */
  static TableMaintainedEvent maintainedEvent(TableIdentifier name, Table table,
      String operation, List<Long> expiredSnapshotIds, Collection<String> deleted) {
    String uuid = table.uuid().toString();
    String commitId = UUID.randomUUID().toString();
    return new TableMaintainedEvent(TableMaintainedEvent.eventId(uuid, operation, commitId),
        SOURCE, Instant.now(), levels(name), uuid, operation, metadataLocation(table),
        expiredSnapshotIds, FileKinds.count(deleted), commitId, 0);
  }

  private static List<String> levels(TableIdentifier name) {
    List<String> levels = new ArrayList<>(List.of(name.namespace().levels()));
    levels.add(name.name());
    return levels;
  }

  private static String metadataLocation(Table table) {
    return table instanceof HasTableOperations ops
        ? ops.operations().current().metadataFileLocation() : null;
  }
}
