package io.verglas.vector;

import java.util.Objects;

/** A row of an Iceberg table at one snapshot: its data file and its position in that file. */
public record RowRef(String file, long position) {
  public RowRef {
    Objects.requireNonNull(file, "file");
    if (position < 0) {
      throw new IllegalArgumentException("Cannot reference row: negative position " + position);
    }
  }
}
