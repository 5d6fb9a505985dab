package io.verglas.maintenance.events;

import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces maintenance commits on the change feed, so caches move heat to the new files. A
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

  static CatalogEvent event(TableIdentifier name, Table table, Snapshot snapshot) {
    List<String> levels = new ArrayList<>(List.of(name.namespace().levels()));
    levels.add(name.name());
    String uuid = table.uuid().toString();
    String metadata = table instanceof HasTableOperations ops
        ? ops.operations().current().metadataFileLocation() : null;
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshot.snapshotId()), SOURCE,
        Instant.now(), levels, uuid, snapshot.snapshotId(), snapshot.parentId(),
        snapshot.operation(), snapshot.sequenceNumber(), snapshot.timestampMillis(),
        snapshot.summary(), metadata, 0);
  }
}
