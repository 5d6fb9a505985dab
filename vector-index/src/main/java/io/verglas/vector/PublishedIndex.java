package io.verglas.vector;

import org.apache.iceberg.StatisticsFile;

/** An index published for one snapshot: the statistics file holding its blobs. */
public record PublishedIndex(long snapshotId, StatisticsFile statisticsFile, VectorMetric metric,
    int dimension, int fieldId, long count) {
  /** Identifies the decoded copy: a statistics file is written once, under a fresh name. */
  public String cacheKey() {
    return statisticsFile.path() + "#" + snapshotId;
  }
}
