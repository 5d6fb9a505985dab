package io.verglas.query;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Which snapshot a query reads: the current one, or one named by id, by a time (the snapshot
 * current then) or by a branch or tag. Every answer names the snapshot it read.
 */
public sealed interface SnapshotSelector {
  SnapshotSelector CURRENT = new Current();

  /** The snapshot, or null when the table has none yet (an empty answer). */
  Snapshot select(Table table);

  record Current() implements SnapshotSelector {
    @Override
    public Snapshot select(Table table) {
      return table.currentSnapshot();
    }
  }

  record ById(long id) implements SnapshotSelector {
    @Override
    public Snapshot select(Table table) {
      Snapshot snapshot = table.snapshot(id);
      if (snapshot == null) {
        throw QueryException.notFound("Cannot find snapshot " + id + " of " + table.name());
      }
      return snapshot;
    }
  }

  record AsOf(long timestampMillis) implements SnapshotSelector {
    @Override
    public Snapshot select(Table table) {
      try {
        return table.snapshot(SnapshotUtil.snapshotIdAsOfTime(table, timestampMillis));
      } catch (IllegalArgumentException e) {
        throw QueryException.notFound("Cannot find a snapshot of " + table.name() + " as of "
            + timestampMillis + ": " + e.getMessage());
      }
    }
  }

  record ByRef(String name) implements SnapshotSelector {
    @Override
    public Snapshot select(Table table) {
      SnapshotRef ref = table.refs().get(name);
      if (ref == null) {
        throw QueryException.notFound("Cannot find branch or tag " + name + " of " + table.name());
      }
      return table.snapshot(ref.snapshotId());
    }
  }

  /** {@code {"id": n}}, {@code {"timestamp-ms": t}}, {@code {"ref": "name"}}, or absent. */
  static SnapshotSelector fromJson(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return CURRENT;
    }
    if (!node.isObject() || node.size() != 1) {
      throw QueryException.badRequest("Invalid snapshot: " + node
          + " (one of {\"id\": n}, {\"timestamp-ms\": t}, {\"ref\": \"name\"})");
    }
    if (node.has("id") && node.get("id").canConvertToLong()) {
      return new ById(node.get("id").asLong());
    }
    if (node.has("timestamp-ms") && node.get("timestamp-ms").canConvertToLong()) {
      return new AsOf(node.get("timestamp-ms").asLong());
    }
    if (node.has("ref") && node.get("ref").isTextual()) {
      return new ByRef(node.get("ref").asText());
    }
    throw QueryException.badRequest("Invalid snapshot: " + node
        + " (one of {\"id\": n}, {\"timestamp-ms\": t}, {\"ref\": \"name\"})");
  }
}
