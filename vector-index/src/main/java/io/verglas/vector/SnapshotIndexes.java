package io.verglas.vector;

import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.BlobMetadata;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;

/**
 * Finds the index of exactly one snapshot: the table's statistics file for that snapshot, and in
 * it graph and ordinal blobs whose source snapshot is that snapshot. An index of any other
 * snapshot, parent or child, is never returned.
 */
public final class SnapshotIndexes {
  private SnapshotIndexes() {}

  public static Optional<PublishedIndex> find(Table table, long snapshotId) {
    for (StatisticsFile file : table.statisticsFiles()) {
      if (file.snapshotId() == snapshotId) {
        return of(file, snapshotId);
      }
    }
    return Optional.empty();
  }

  static Optional<PublishedIndex> of(StatisticsFile file, long snapshotId) {
    BlobMetadata graph = null;
    boolean ordinals = false;
    for (BlobMetadata blob : file.blobMetadata()) {
      if (blob.sourceSnapshotId() != snapshotId) {
        continue;
      }
      if (IndexBlobs.GRAPH_TYPE.equals(blob.type()) && graph == null) {
        graph = blob;
      } else if (IndexBlobs.ORDINALS_TYPE.equals(blob.type())) {
        ordinals = true;
      }
    }
    if (graph == null || !ordinals) {
      return Optional.empty();
    }
    Map<String, String> p = graph.properties();
    return Optional.of(new PublishedIndex(snapshotId, file,
        VectorMetric.fromId(p.get(IndexBlobs.METRIC)),
        Integer.parseInt(p.get(IndexBlobs.DIMENSION)), graph.fields().get(0),
        Long.parseLong(p.get(IndexBlobs.COUNT)), p));
  }
}
