package io.verglas.vector;

import java.util.List;

/**
 * The answer to a vector search at one snapshot: the hits, best first, and how they were found.
 * {@link Method#INDEX} means the snapshot's own index, {@link Method#EXACT} a scan of the
 * snapshot's live rows (the snapshot had no usable index; {@code reason} says why).
 */
public record VectorSearchResult(long snapshotId, Method method, String reason, List<Hit> hits) {
  public enum Method { INDEX, EXACT }

  /** A row of the snapshot and its similarity to the query (higher is closer). */
  public record Hit(RowRef row, float score) {}

  public VectorSearchResult {
    hits = List.copyOf(hits);
  }
}
