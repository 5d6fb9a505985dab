package io.verglas.cache.awareness;

import java.util.Objects;

/**
 * The logical coordinates heat is counted under: a table, a partition (its path, empty when the
 * table is unpartitioned) and a column (its dotted Parquet path; {@link #WHOLE_FILE} for files
 * without column structure). A compaction destroys every physical identity (file, offset) but
 * keeps these, which is what lets heat survive it.
 */
record HeatCoordinates(String table, String partition, String column) {
  /** The column of reads of files the index knows no column chunks of (ORC, Avro). */
  static final String WHOLE_FILE = "*";

  HeatCoordinates {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(column, "column");
  }
}
