package io.verglas.events;

import io.verglas.table.TableIdentifiers;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Events for tests. */
public final class TestingEvents {
  private TestingEvents() {}

  /** A commit to {@code table}, in the {@link TableIdentifiers} form. */
  public static CatalogEvent commit(String table, long snapshotId) {
    List<String> name = TableIdentifiers.parse(table);
    String uuid = "uuid-" + table;
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshotId), "verglas://test",
        Instant.parse("2026-11-29T10:00:00Z"), name, uuid, snapshotId,
        snapshotId > 1 ? snapshotId - 1 : null, "append", snapshotId, 1_000L * snapshotId,
        Map.of("added-records", "5"), "s3://warehouse/" + table + "/metadata/v1.json", 0);
  }

  /** An expiry of {@code table} that removed snapshots 1 and 2 and their files. */
  public static TableMaintainedEvent expiry(String table, String commitId) {
    List<String> name = TableIdentifiers.parse(table);
    String uuid = "uuid-" + table;
    return new TableMaintainedEvent(
        TableMaintainedEvent.eventId(uuid, TableMaintainedEvent.EXPIRE_SNAPSHOTS, commitId),
        "verglas://test", Instant.parse("2026-11-29T11:00:00Z"), name, uuid,
        TableMaintainedEvent.EXPIRE_SNAPSHOTS, "s3://warehouse/" + table + "/metadata/v2.json",
        List.of(1L, 2L), Map.of("data", 3L, "manifest-list", 2L), commitId, 0);
  }
}
