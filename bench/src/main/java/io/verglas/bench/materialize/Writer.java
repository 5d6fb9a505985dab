package io.verglas.bench.materialize;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

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
            upserts, upserts / 4, parallelism,
            MaterializeBenchmark.configuration(dir.resolve("checkpoints"))));
      }
    }
  },
  PAIMON {
    @Override
    WriterOutcome run(Path dir, long upserts, int parallelism, int freshnessSegments)
        throws Exception {
      return WriterOutcome.of(PaimonPeer.run(dir.resolve("paimon"), upserts, upserts / 4,
          parallelism, MaterializeBenchmark.configuration(dir.resolve("checkpoints"))));
    }
  };

  /** One run on {@code upserts} over a quarter as many keys, everything it writes in {@code dir}. */
  abstract WriterOutcome run(Path dir, long upserts, int parallelism, int freshnessSegments)
      throws Exception;

  /** {@link #run} in a temporary directory deleted afterwards. */
  WriterOutcome runInTemporaryDirectory(long upserts, int parallelism, int freshnessSegments)
      throws Exception {
    Path dir = Files.createTempDirectory("verglas-bench-" + name().toLowerCase() + "-");
    try {
      return run(dir, upserts, parallelism, freshnessSegments);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
