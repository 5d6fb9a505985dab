package io.verglas.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VectorIndexTest {
  private static final long SEED = 20261202L;

  @TempDir Path dir;

  @Test
  void recallAt10OnClusteredDataIsAtLeast095() throws Exception {
    List<float[]> vectors = TestingVectors.clustered(SEED, 5_000, 32, 20);
    List<float[]> queries = TestingVectors.clustered(SEED + 1, 200, 32, 20);
    try (VectorIndex index = VectorIndex.load(VectorMetric.L2, List.of(build(vectors, 100)))) {
      ExactSearch exact = new ExactSearch(VectorMetric.L2, vectors);
      double recall = 0;
      for (float[] query : queries) {
        recall += TestingVectors.recall(exact.search(query, 10), index.search(query, 10, 100, null));
      }
      recall /= queries.size();
      System.out.printf("seed %d: recall@10 at ef 100 = %.4f%n", SEED, recall);
      assertThat(recall).isGreaterThanOrEqualTo(0.95);
    }
  }

  @Test
  void shardedGraphAnswersLikeOneBuffer() throws Exception {
    List<float[]> vectors = TestingVectors.clustered(SEED, 1_000, 16, 8);
    ByteBuffer whole = build(vectors, 64);
    List<ByteBuffer> shards = new ArrayList<>();
    for (int offset = 0; offset < whole.remaining(); offset += 1_001) {
      ByteBuffer shard = whole.duplicate();
      shard.position(offset).limit(Math.min(whole.limit(), offset + 1_001));
      shards.add(shard.slice());
    }
    assertThat(shards).hasSizeGreaterThan(10);
    try (VectorIndex one = VectorIndex.load(VectorMetric.L2, List.of(whole));
        VectorIndex many = VectorIndex.load(VectorMetric.L2, shards)) {
      assertThat(many.size()).isEqualTo(1_000);
      assertThat(many.sizeInBytes()).isEqualTo(whole.remaining() + 4L * 16 * 1_000);
      for (float[] query : TestingVectors.clustered(SEED + 2, 20, 16, 8)) {
        assertThat(many.search(query, 10, 40, null)).isEqualTo(one.search(query, 10, 40, null));
      }
    }
  }

  @Test
  void filterKeepsRejectedOrdinalsOut() throws Exception {
    List<float[]> vectors = TestingVectors.clustered(SEED, 500, 8, 4);
    try (VectorIndex index = VectorIndex.load(VectorMetric.COSINE, List.of(build(vectors, 64)))) {
      List<Neighbor> hits = index.search(vectors.get(7), 10, 40, ordinal -> ordinal % 2 == 0);
      assertThat(hits).hasSize(10).allMatch(n -> n.ordinal() % 2 == 0);
      assertThat(index.search(vectors.get(7), 1, 40, null).get(0).ordinal()).isEqualTo(7);
    }
  }

  @Test
  void badQueriesAndOptionsAreRefused() throws Exception {
    List<float[]> vectors = TestingVectors.clustered(SEED, 100, 8, 2);
    try (VectorIndex index = VectorIndex.load(VectorMetric.L2, List.of(build(vectors, 32)))) {
      assertThatThrownBy(() -> index.search(new float[7], 10, 40, null))
          .hasMessage("Cannot search vector index: query has 7 dimensions, the index 8");
      assertThatThrownBy(() -> index.search(new float[8], 10, 5, null))
          .hasMessageContaining("k=10, ef=5");
    }
    assertThatThrownBy(() -> IndexBuilder.builder().maxDegree(1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDegree: 1");
    assertThatThrownBy(() -> IndexBuilder.builder().build().write(List.of(), dir.resolve("g")))
        .hasMessage("Cannot build vector index: no vectors");
    assertThatThrownBy(() -> IndexBuilder.builder().build()
        .write(List.of(new float[3], new float[4]), dir.resolve("g")))
        .hasMessage("Cannot build vector index: vector 1 has 4 dimensions, expected 3");
    assertThatThrownBy(() -> VectorMetric.fromId("hamming"))
        .hasMessageContaining("Cannot parse vector metric: hamming");
  }

  private ByteBuffer build(List<float[]> vectors, int beamWidth) throws Exception {
    Path graph = Files.createTempFile(dir, "g", ".graph");
    IndexBuilder.builder().beamWidth(beamWidth).build().write(vectors, graph);
    return ByteBuffer.wrap(Files.readAllBytes(graph));
  }
}
