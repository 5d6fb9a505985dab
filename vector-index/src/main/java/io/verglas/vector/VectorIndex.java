package io.verglas.vector;

import java.io.Closeable;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * A decoded Vamana graph over vectors numbered 0..size-1, searchable from any thread. Neighbor
 * lists are read from the graph blob's shards as they were loaded (no copy to disk), vectors
 * from float arrays decoded at load.
 */
public interface VectorIndex extends Closeable {
  VectorMetric metric();

  int dimension();

  int size();

  /** Bytes this index holds: the graph's shards plus its vectors decoded into float arrays. */
  long sizeInBytes();

  /**
   * The {@code k} vectors nearest to {@code query}, best first, among ordinals that
   * {@code accept} lets through; {@code ef} is the search beam (at least {@code k}).
   */
  List<Neighbor> search(float[] query, int k, int ef, IntPredicate accept);

  /** Loads a graph written by {@link IndexBuilder#write}, split in any number of shards. */
  static VectorIndex load(VectorMetric metric, List<ByteBuffer> shards) {
    return VamanaIndex.load(metric, shards);
  }

  @Override
  void close();
}
