package io.verglas.vector;

import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import java.util.Locale;

/**
 * How two vectors are compared. Scores are similarities: higher is closer, for every metric, so
 * an index search and an exact search rank the same way.
 */
public enum VectorMetric {
  L2(VectorSimilarityFunction.EUCLIDEAN),
  COSINE(VectorSimilarityFunction.COSINE),
  DOT(VectorSimilarityFunction.DOT_PRODUCT);

  private final VectorSimilarityFunction similarity;

  VectorMetric(VectorSimilarityFunction similarity) {
    this.similarity = similarity;
  }

  VectorSimilarityFunction similarity() {
    return similarity;
  }

  /** The name used in table and blob properties: {@code l2}, {@code cosine}, {@code dot}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static VectorMetric fromId(String id) {
    for (VectorMetric metric : values()) {
      if (metric.id().equalsIgnoreCase(id)) {
        return metric;
      }
    }
    throw new IllegalArgumentException("Cannot parse vector metric: " + id
        + " (expected l2, cosine or dot)");
  }
}
