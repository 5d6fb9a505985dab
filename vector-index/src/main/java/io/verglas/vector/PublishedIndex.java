package io.verglas.vector;

import java.util.Map;
import org.apache.iceberg.StatisticsFile;

/**
 * An index published for one snapshot: the statistics file holding its blobs, and the
 * properties of its graph blob (how it was built among them).
 */
public record PublishedIndex(long snapshotId, StatisticsFile statisticsFile, VectorMetric metric,
    int dimension, int fieldId, long count, Map<String, String> properties) {
  public PublishedIndex {
    properties = Map.copyOf(properties);
  }

  /** Identifies the decoded copy: a statistics file is written once, under a fresh name. */
  public String cacheKey() {
    return statisticsFile.path() + "#" + snapshotId;
  }

  /** How the graph was built: {@code full} or {@code incremental} ({@code full} when unsaid). */
  public String build() {
    return properties.getOrDefault(IndexBlobs.BUILD, IndexBlobs.BUILD_FULL);
  }
}
