package io.verglas.maintenance.plan;

import java.util.Objects;

/**
 * What the planner knows of one live data file: where it is, its partition, its size, its rows
 * and how many of them its delete files remove.
 *
 * @param path the data file's location
 * @param partition the partition's identity ({@code specId/path}); files are only merged
 *     within one partition
 * @param sizeBytes the file's size
 * @param recordCount rows written in the file
 * @param deletedRecords rows removed by position deletes or deletion vectors scoped to this
 *     file ({@code 0} when none or unknown)
 * @param deleteFiles delete files of any kind that apply to this file
 */
public record FileState(String path, String partition, long sizeBytes, long recordCount,
    long deletedRecords, int deleteFiles) {

  public FileState {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(partition, "partition");
    if (sizeBytes < 0 || recordCount < 0 || deletedRecords < 0 || deleteFiles < 0) {
      throw new IllegalArgumentException("Invalid file state of " + path
          + ": sizes and counts must be >= 0");
    }
  }

  /** The share of rows removed by deletes, in [0, 1]. */
  public double deleteRatio() {
    return recordCount == 0 ? 0 : Math.min(1.0, (double) deletedRecords / recordCount);
  }

  public boolean hasDeletes() {
    return deleteFiles > 0;
  }

  /** Rows left once deletes are applied (an estimate when deletes are not file-scoped). */
  public long liveRecords() {
    return Math.max(0, recordCount - deletedRecords);
  }

  /** Bytes the live rows would take in a rewritten file, pro rata. */
  public long liveBytes() {
    return recordCount == 0 ? 0 : Math.round(sizeBytes * ((double) liveRecords() / recordCount));
  }
}
