package io.verglas.vector;

import io.github.jbellis.jvector.disk.ByteBufferReader;
import io.github.jbellis.jvector.disk.ReaderSupplier;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.graph.similarity.ScoreFunction;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntPredicate;

/**
 * JVector's on-disk graph read from in-memory shards. Searchers (each with its own view and
 * visited set) are pooled, so concurrent searches neither share state nor allocate per query.
 */
final class VamanaIndex implements VectorIndex {
  private static final VectorTypeSupport VECTORS =
      VectorizationProvider.getInstance().getVectorTypeSupport();

  private final VectorMetric metric;
  private final OnDiskGraphIndex graph;
  private final long bytes;
  private final Queue<Searcher> idle = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;

  private VamanaIndex(VectorMetric metric, OnDiskGraphIndex graph, long bytes) {
    this.metric = metric;
    this.graph = graph;
    this.bytes = bytes;
  }

  static VamanaIndex load(VectorMetric metric, List<ByteBuffer> shards) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("Cannot load vector index: no shards");
    }
    List<ByteBuffer> copies = new ArrayList<>(shards.size());
    long bytes = 0;
    for (ByteBuffer shard : shards) {
      copies.add(shard.slice());
      bytes += shard.remaining();
    }
    ReaderSupplier readers = copies.size() == 1
        ? () -> new ByteBufferReader(copies.get(0).duplicate())
        : () -> new ShardedReader(copies);
    return new VamanaIndex(metric, OnDiskGraphIndex.load(readers), bytes);
  }

  @Override public VectorMetric metric() { return metric; }
  @Override public int dimension() { return graph.getDimension(); }
  @Override public int size() { return graph.size(0); }
  @Override public long sizeInBytes() { return bytes; }

  @Override
  public List<Neighbor> search(float[] query, int k, int ef, IntPredicate accept) {
    checkQuery(query, k, ef);
    Searcher searcher = borrow();
    try {
      Bits bits = accept == null ? Bits.ALL : accept::test;
      SearchResult result = searcher.graph().search(searcher.exact(query, metric),
          k, ef, Float.NEGATIVE_INFINITY, 0.0f, bits);
      List<Neighbor> hits = new ArrayList<>(result.getNodes().length);
      for (SearchResult.NodeScore node : result.getNodes()) {
        hits.add(new Neighbor(node.node, node.score));
      }
      return hits;
    } finally {
      idle.offer(searcher);
    }
  }

  private void checkQuery(float[] query, int k, int ef) {
    if (query.length != dimension()) {
      throw new IllegalArgumentException("Cannot search vector index: query has " + query.length
          + " dimensions, the index " + dimension());
    }
    if (k < 1 || ef < k) {
      throw new IllegalArgumentException("Cannot search vector index: k=" + k + ", ef=" + ef
          + " (need 1 <= k <= ef)");
    }
  }

  private Searcher borrow() {
    if (closed) {
      throw new IllegalStateException("Cannot search vector index: it is closed");
    }
    Searcher searcher = idle.poll();
    return searcher != null ? searcher
        : new Searcher(new GraphSearcher(graph), VECTORS.createFloatVector(dimension()));
  }

  /**
   * One search at a time: JVector's searcher (view, visited set, queues) and a buffer each
   * candidate's vector is read into, so scoring allocates nothing per visited node.
   */
  private record Searcher(GraphSearcher graph, VectorFloat<?> candidate) {
    DefaultSearchScoreProvider exact(float[] query, VectorMetric metric) {
      VectorFloat<?> q = VECTORS.createFloatVector(query.clone());
      RandomAccessVectorValues vectors = (RandomAccessVectorValues) graph.getView();
      VectorSimilarityFunction similarity = metric.similarity();
      ScoreFunction.ExactScoreFunction score = node -> {
        vectors.getVectorInto(node, candidate, 0);
        return similarity.compare(q, candidate);
      };
      return new DefaultSearchScoreProvider(score);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      for (Searcher searcher = idle.poll(); searcher != null; searcher = idle.poll()) {
        searcher.graph().close();
      }
      graph.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close vector index", e);
    }
  }
}
