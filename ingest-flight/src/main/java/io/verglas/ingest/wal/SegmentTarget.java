package io.verglas.ingest.wal;

import java.util.List;
import java.util.Objects;

/**
 * The table (and the schema version its batches were validated against) a segment is for: one
 * segment holds batches of exactly one table and one schema id, as the header records.
 */
public record SegmentTarget(String tableUuid, List<String> tableName, int schemaId) {
  public SegmentTarget {
    Objects.requireNonNull(tableUuid, "tableUuid");
    tableName = List.copyOf(tableName);
  }

  public String displayName() {
    return String.join(".", tableName);
  }
}
