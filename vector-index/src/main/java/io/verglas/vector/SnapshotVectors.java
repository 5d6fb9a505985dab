package io.verglas.vector;

import java.util.List;

/** The live vectors of a table at one snapshot, ordinal = list index, with their rows. */
public record SnapshotVectors(long snapshotId, long sequenceNumber, VectorColumn column,
    List<float[]> vectors, OrdinalMap rows) {
  public int size() {
    return vectors.size();
  }
}
