package io.verglas.bench.query;

import io.verglas.bench.BenchmarkReport;
import io.verglas.vector.ExactSearch;
import io.verglas.vector.IndexBlobs;
import io.verglas.vector.IndexPublisher;
import io.verglas.vector.Neighbor;
import io.verglas.vector.PublishedIndex;
import io.verglas.vector.VectorMetric;
import io.verglas.vector.VectorSearchResult;
import io.verglas.vector.VectorSearcher;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;

/**
 * Incremental build: 1 % more rows (Fashion-MNIST test images past the queries) appended to the
 * benchmark's table in one commit, and that snapshot's index published, which extends the
 * previous snapshot's graph instead of building anew. {@code vector_incremental_build_seconds}
 * (publish, reading the table included, as {@code vector_build_seconds} of the full build),
 * {@code full_vs_incremental_build_seconds} their ratio, and the recall of the extended index at
 * each ef against exact search over base and appended rows.
 */
final class IncrementalRun {
  private IncrementalRun() {}

  static void run(BenchmarkReport.Builder report, Table table, Path tempDir, List<float[]> base,
      List<float[]> queries, double fullSeconds) throws Exception {
    int count = base.size() / 100;
    List<float[]> appended = FashionMnist.test(queries.size() + count)
        .subList(queries.size(), queries.size() + count);
    DataFile file = VectorTable.append(table, base.size(), appended);
    long snapshot = table.currentSnapshot().snapshotId();
    long start = System.nanoTime();
    PublishedIndex index = IndexPublisher.builder().tempDir(tempDir).build()
        .publish(table, snapshot).orElseThrow();
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!IndexBlobs.BUILD_INCREMENTAL.equals(index.build())) {
      throw new IllegalStateException("Cannot measure the incremental build: the publisher made a "
          + index.build() + " build (" + index.properties().get(IndexBlobs.BUILD_REASON) + ")");
    }
    report.environment("vector_incremental_appended", count)
        .metric("vector_incremental_build_seconds", Math.round(seconds * 1000) / 1000.0)
        .ratio("full_vs_incremental_build_seconds", fullSeconds, seconds);
    List<float[]> all = new ArrayList<>(base);
    all.addAll(appended);
    int[][] truth = groundTruth(all, queries);
    VectorSearcher searcher = VectorSearcher.builder().cacheMaxBytes(2L << 30)
        .exactSearchMaxRows(0).build();
    for (int ef : QueryBenchmark.EFS) {
      long found = 0;
      for (int q = 0; q < queries.size(); q++) {
        VectorSearchResult result = searcher.search(table, snapshot, queries.get(q),
            QueryBenchmark.K, ef);
        for (VectorSearchResult.Hit hit : result.hits()) {
          int ordinal = (int) hit.row().position()
              + (hit.row().file().equals(file.location()) ? base.size() : 0);
          found += IntStream.of(truth[q]).anyMatch(t -> t == ordinal) ? 1 : 0;
        }
      }
      report.metric("vector_incremental_recall_at_10_ef_" + ef,
          Math.round(1000.0 * found / ((long) queries.size() * QueryBenchmark.K)) / 1000.0);
    }
  }

  static int[][] groundTruth(List<float[]> base, List<float[]> queries) {
    ExactSearch exact = new ExactSearch(VectorMetric.L2, base);
    return IntStream.range(0, queries.size()).parallel()
        .mapToObj(q -> exact.search(queries.get(q), QueryBenchmark.K).stream()
            .mapToInt(Neighbor::ordinal).toArray())
        .toArray(int[][]::new);
  }
}
