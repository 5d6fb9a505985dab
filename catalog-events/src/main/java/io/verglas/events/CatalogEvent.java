package io.verglas.events;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An {@code org.apache.iceberg.snapshot.committed} event: one Iceberg commit, as a CloudEvents
 * 1.0 event. {@code feedSequence} is 0 until the change feed accepts the event and numbers it.
 *
 * <p>The event id is {@code <table uuid>:<snapshot id>}, so a producer that retries after an
 * unknown outcome publishes the same id and the feed keeps one copy.
 */
public record CatalogEvent(
    String id,
    String source,
    Instant time,
    List<String> table,
    String tableUuid,
    long snapshotId,
    Long parentSnapshotId,
    String operation,
    long sequenceNumber,
    long commitTimeMillis,
    Map<String, String> summary,
    String metadataLocation,
    long feedSequence) implements FeedEvent {

  public static final String TYPE = "org.apache.iceberg.snapshot.committed";
  public static final String SPEC_VERSION = "1.0";

  public CatalogEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(time, "time");
    table = List.copyOf(table);
    Objects.requireNonNull(tableUuid, "tableUuid");
    Objects.requireNonNull(operation, "operation");
    summary = Map.copyOf(summary);
  }

  public static String eventId(String tableUuid, long snapshotId) {
    return tableUuid + ":" + snapshotId;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CatalogEvent withFeedSequence(long sequence) {
    return new CatalogEvent(id, source, time, table, tableUuid, snapshotId, parentSnapshotId,
        operation, sequenceNumber, commitTimeMillis, summary, metadataLocation, sequence);
  }
}
