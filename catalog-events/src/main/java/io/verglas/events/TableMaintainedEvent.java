package io.verglas.events;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An {@code io.verglas.table.maintained} event: a maintenance operation that changed a table's
 * storage without creating a snapshot (snapshot expiry, orphan file removal), as a CloudEvents
 * 1.0 event. Caches use it to drop what they hold for the deleted files.
 *
 * <p>{@code metadataLocation} is the table's metadata file after the operation (expiry writes a
 * new one; orphan removal leaves it as it was). {@code deletedFiles} counts deleted files by
 * kind ({@code data}, {@code puffin}, {@code manifest}, {@code manifest-list}, {@code metadata},
 * {@code other}). The event id is {@code <table uuid>:<operation>:<commit id>}: the commit id is
 * drawn once per operation, so a retried publish carries the same id and the feed keeps one copy.
 */
public record TableMaintainedEvent(
    String id,
    String source,
    Instant time,
    List<String> table,
    String tableUuid,
    String operation,
    String metadataLocation,
    List<Long> expiredSnapshotIds,
    Map<String, Long> deletedFiles,
    String commitId,
    long feedSequence) implements FeedEvent {

  public static final String TYPE = "io.verglas.table.maintained";
  public static final String EXPIRE_SNAPSHOTS = "expire-snapshots";
  public static final String REMOVE_ORPHAN_FILES = "remove-orphan-files";

  public TableMaintainedEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(time, "time");
    table = List.copyOf(table);
    Objects.requireNonNull(tableUuid, "tableUuid");
    if (!EXPIRE_SNAPSHOTS.equals(operation) && !REMOVE_ORPHAN_FILES.equals(operation)) {
      throw new IllegalArgumentException("Invalid maintenance operation: " + operation
          + " (expected " + EXPIRE_SNAPSHOTS + " or " + REMOVE_ORPHAN_FILES + ")");
    }
    expiredSnapshotIds = List.copyOf(expiredSnapshotIds);
    deletedFiles = Map.copyOf(deletedFiles);
    deletedFiles.forEach((kind, count) -> {
      if (count < 0) {
        throw new IllegalArgumentException("Invalid deleted file count of " + kind + ": " + count);
      }
    });
    Objects.requireNonNull(commitId, "commitId");
  }

  public static String eventId(String tableUuid, String operation, String commitId) {
    return tableUuid + ":" + operation + ":" + commitId;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public TableMaintainedEvent withFeedSequence(long sequence) {
    return new TableMaintainedEvent(id, source, time, table, tableUuid, operation,
        metadataLocation, expiredSnapshotIds, deletedFiles, commitId, sequence);
  }
}
