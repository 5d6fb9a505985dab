package io.verglas.bench.materialize;

import io.verglas.bench.stack.BenchCatalog;
import io.verglas.bench.stack.TemporaryDirectory;
import java.nio.file.Path;

/** The three ways the materialize benchmark writes the same upserts. */
enum Writer {
  OURS {
    @Override
    WriterOutcome run(Path dir, long upserts, int parallelism, int freshnessSegments)
        throws Exception {
      return WriterOutcome.of(OursRun.run(dir, upserts, parallelism, freshnessSegments));
    }
  },
  ICEBERG_UPSERT {
    @Override
    WriterOutcome run(Path dir, long upserts, int parallelism, int freshnessSegments)
        throws Exception {
      try (BenchCatalog catalog = BenchCatalog.create(dir)) {
        return WriterOutcome.of(IcebergUpsertPeer.run(catalog.catalog(), catalog.properties(),
            upserts, MaterializeBenchmark.keys(upserts), parallelism,
            MaterializeBenchmark.configuration(dir.resolve("checkpoints"))));
      }
    }
  },
  PAIMON {
    @Override
    WriterOutcome run(Path dir, long upserts, int parallelism, int freshnessSegments)
        throws Exception {
      return WriterOutcome.of(PaimonPeer.run(dir.resolve("paimon"), upserts,
          MaterializeBenchmark.keys(upserts), parallelism,
          MaterializeBenchmark.configuration(dir.resolve("checkpoints"))));
    }
  };

  /**
   * One run on {@code upserts} over a quarter as many keys, everything it writes in
   * {@code dir}.
   */
  abstract WriterOutcome run(Path dir, long upserts, int parallelism, int freshnessSegments)
      throws Exception;

  /** {@link #run} in a temporary directory deleted afterwards. */
  WriterOutcome runInTemporaryDirectory(long upserts, int parallelism, int freshnessSegments)
      throws Exception {
    try (TemporaryDirectory dir =
        TemporaryDirectory.create("verglas-bench-" + name().toLowerCase() + "-")) {
      return run(dir.path(), upserts, parallelism, freshnessSegments);
    }
  }
}
