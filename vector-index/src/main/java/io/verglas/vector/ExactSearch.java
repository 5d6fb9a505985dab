package io.verglas.vector;

import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Brute-force top-k over a list of vectors, scored with the same similarity as the index: the
 * fallback for snapshots without an index, and the ground truth of recall tests.
 */
public final class ExactSearch {
  private static final VectorTypeSupport VECTORS =
      VectorizationProvider.getInstance().getVectorTypeSupport();

  private final VectorMetric metric;
  private final List<VectorFloat<?>> vectors;

  public ExactSearch(VectorMetric metric, List<float[]> vectors) {
    this.metric = metric;
    this.vectors = new ArrayList<>(vectors.size());
    for (float[] vector : vectors) {
      this.vectors.add(VECTORS.createFloatVector(vector));
    }
  }

  public List<Neighbor> search(float[] query, int k) {
    return search(query, k, null);
  }

  /** The top {@code k} among the ordinals {@code accept} admits (all when null). */
  public List<Neighbor> search(float[] query, int k, java.util.function.IntPredicate accept) {
    if (k < 1) {
      throw new IllegalArgumentException("Cannot search: k=" + k + " (must be >= 1)");
    }
    VectorSimilarityFunction similarity = metric.similarity();
    VectorFloat<?> q = VECTORS.createFloatVector(query.clone());
    PriorityQueue<Neighbor> best = new PriorityQueue<>(k + 1,
        Comparator.comparingDouble(Neighbor::score));
    for (int i = 0; i < vectors.size(); i++) {
      if (accept != null && !accept.test(i)) {
        continue;
      }
      VectorFloat<?> vector = vectors.get(i);
      if (vector.length() != q.length()) {
        throw new IllegalArgumentException("Cannot search: query has " + q.length()
            + " dimensions, vectors " + vector.length());
      }
      float score = similarity.compare(q, vector);
      if (best.size() < k) {
        best.add(new Neighbor(i, score));
      } else if (score > best.peek().score()) {
        best.poll();
        best.add(new Neighbor(i, score));
      }
    }
    List<Neighbor> hits = new ArrayList<>(best);
    hits.sort(Comparator.comparingDouble(Neighbor::score).reversed());
    return hits;
  }
}
