package io.verglas.vector;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Generated clustered vectors: Gaussian blobs around random centers, seeded. */
final class TestingVectors {
  private TestingVectors() {}

  static List<float[]> clustered(long seed, int count, int dimension, int clusters) {
    Random random = new Random(seed);
    float[][] centers = new float[clusters][dimension];
    for (float[] center : centers) {
      for (int d = 0; d < dimension; d++) {
        center[d] = (float) (random.nextGaussian() * 10);
      }
    }
    List<float[]> vectors = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      float[] center = centers[random.nextInt(clusters)];
      float[] vector = new float[dimension];
      for (int d = 0; d < dimension; d++) {
        vector[d] = center[d] + (float) random.nextGaussian();
      }
      vectors.add(vector);
    }
    return vectors;
  }

  /** Fraction of the exact top-k ordinals that {@code found} contains. */
  static double recall(List<Neighbor> exact, List<Neighbor> found) {
    java.util.Set<Integer> truth = new java.util.HashSet<>();
    exact.forEach(n -> truth.add(n.ordinal()));
    long hits = found.stream().filter(n -> truth.contains(n.ordinal())).count();
    return (double) hits / exact.size();
  }
}
