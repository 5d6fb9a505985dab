package io.verglas.vector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the graph of one snapshot's live vectors: incrementally from the index of its nearest
 * indexed ancestor when that is allowed and pays, otherwise from scratch. Says which, and why,
 * in the log and in the graph blob's properties.
 */
/*
 * Design. The snapshot's live rows are always read in full (deletes applied): they are the
 * truth the new ordinal map must equal. What is saved is the graph construction, which dominates
 * a build: the earlier graph is loaded with its node ids, its ordinals whose rows are gone are
 * deleted, the new rows inserted (IncrementalPlan, IndexBuilder.update).
 *
 * A full build instead when: no ancestor within MAX_ANCESTORS has an index of this column with
 * the same metric, dimension, degree and hierarchy
 * (blobs from before incremental builds do not say their hierarchy: rebuilt); a snapshot since that ancestor rewrote data files
 * (compaction: every row changes place, nothing to keep); or the rows added plus removed since
 * the last full build of the lineage exceed maxChangedFraction of the snapshot's rows, since
 * every deletion repaired by edge patching and every late insertion drifts the graph from one
 * built at once.
 */
final class GraphBuild {
  private static final Logger LOG = LoggerFactory.getLogger(GraphBuild.class);
  private static final int MAX_ANCESTORS = 64;

  /** The vectors in the graph's ordinal order, and what the graph blob says of its build. */
  record Result(SnapshotVectors vectors, Map<String, String> properties) {}

  private GraphBuild() {}

  static Result write(Table table, SnapshotVectors target, IndexBuilder builder,
      double maxChangedFraction, Path tempDir, Path out) throws IOException {
    if (maxChangedFraction <= 0) {
      return full(table, target, builder, "incremental builds are off", out);
    }
    Base base = base(table, target, builder);
    if (base.index() == null) {
      return full(table, target, builder, base.reason(), out);
    }
    String reason;
    try {
      StoredIndex stored = StoredIndex.read(table, base.index());
      IncrementalPlan plan = IncrementalPlan.of(stored.rows(), target);
      long sinceFull = Long.parseLong(base.index().properties()
          .getOrDefault(IndexBlobs.CHANGED_SINCE_FULL, "0")) + plan.changed();
      if (sinceFull <= maxChangedFraction * target.size()) {
        return incremental(table, target, builder, base.index(), stored, plan, sinceFull,
            tempDir, out);
      }
      reason = sinceFull + " rows changed since the last full build (up to "
          + maxChangedFraction + " of " + target.size() + " allowed)";
    } catch (RuntimeException e) {
      // An unreadable earlier index must not block every later build: build anew.
      reason = "extending snapshot " + base.index().snapshotId() + "'s index failed: " + e;
      LOG.warn("Cannot build the vector index of {} at snapshot {} incrementally: {}",
          table.name(), target.snapshotId(), e.toString());
    }
    return full(table, target, builder, reason, out);
  }

  private static Result full(Table table, SnapshotVectors target, IndexBuilder builder,
      String reason, Path out) {
    long started = System.nanoTime();
    builder.write(target.vectors(), out);
    LOG.info("Full build of the vector index of {} at snapshot {}: {} vectors in {} ms ({})",
        table.name(), target.snapshotId(), target.size(), millisSince(started), reason);
    Map<String, String> props = new HashMap<>();
    props.put(IndexBlobs.BUILD, IndexBlobs.BUILD_FULL);
    props.put(IndexBlobs.BUILD_REASON, reason);
    props.put(IndexBlobs.CHANGED_SINCE_FULL, "0");
    return new Result(target, props);
  }

  private static Result incremental(Table table, SnapshotVectors target, IndexBuilder builder,
      PublishedIndex base, StoredIndex stored, IncrementalPlan plan, long sinceFull,
      Path tempDir, Path out) throws IOException {
    long started = System.nanoTime();
    Path scratch = Files.createTempFile(tempDir, "vamana-", ".heap");
    try {
      builder.update(stored.readers(), plan.byId(), plan.deleted(), scratch, out);
    } finally {
      Files.deleteIfExists(scratch);
    }
    LOG.info("Incremental build of the vector index of {} at snapshot {} from snapshot {}'s: "
        + "{} added, {} removed, {} vectors in {} ms", table.name(), target.snapshotId(),
        base.snapshotId(), plan.added(), plan.deleted().cardinality(), target.size(),
        millisSince(started));
    Map<String, String> props = new HashMap<>();
    props.put(IndexBlobs.BUILD, IndexBlobs.BUILD_INCREMENTAL);
    props.put(IndexBlobs.BASE_SNAPSHOT_ID, Long.toString(base.snapshotId()));
    props.put(IndexBlobs.CHANGED_SINCE_FULL, Long.toString(sinceFull));
    return new Result(plan.ordered(), props);
  }

  /** The index to extend, or why there is none. */
  private record Base(PublishedIndex index, String reason) {}

  private static Base base(Table table, SnapshotVectors target, IndexBuilder builder) {
    Snapshot child = table.snapshot(target.snapshotId());
    for (int hops = 0; hops < MAX_ANCESTORS && child.parentId() != null; hops++) {
      if (DataOperations.REPLACE.equals(child.operation())) {
        return new Base(null, "snapshot " + child.snapshotId() + " rewrote data files");
      }
      Snapshot parent = table.snapshot(child.parentId());
      if (parent == null) {
        break;
      }
      Optional<PublishedIndex> index = SnapshotIndexes.find(table, parent.snapshotId())
          .filter(found -> extensible(found, target.column(), builder));
      if (index.isPresent()) {
        return new Base(index.get(), null);
      }
      child = parent;
    }
    return new Base(null, "no ancestor within " + MAX_ANCESTORS
        + " snapshots has an index to extend");
  }

  private static boolean extensible(PublishedIndex index, VectorColumn column,
      IndexBuilder builder) {
    return index.fieldId() == column.fieldId() && index.metric() == column.metric()
        && index.dimension() == column.dimension()
        && Integer.toString(builder.maxDegree())
            .equals(index.properties().get(IndexBlobs.MAX_DEGREE))
        && Boolean.toString(builder.hierarchy())
            .equals(index.properties().get(IndexBlobs.HIERARCHY));
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }
}
