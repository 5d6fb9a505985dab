package io.verglas.bench;

import java.util.List;
import java.util.Optional;

/** The benchmarks this build has. */
public final class Benchmarks {
  private Benchmarks() {}

  public static List<Benchmark> all() {
    return List.of(new io.verglas.bench.ingest.IngestBenchmark(),
        new io.verglas.bench.materialize.MaterializeBenchmark(),
        new io.verglas.bench.cache.CacheBenchmark(),
        new io.verglas.bench.maintenance.MaintenanceBenchmark(),
        new io.verglas.bench.awareness.AwarenessBenchmark(),
        new io.verglas.bench.query.QueryBenchmark(),
        new io.verglas.bench.workers.WorkersBenchmark(),
        new io.verglas.bench.cluster.ClusterBenchmark(),
        new io.verglas.bench.writeback.WriteBackBenchmark(),
        new io.verglas.bench.scale.ScaleBenchmark());
  }

  public static Optional<Benchmark> find(String name) {
    return all().stream().filter(b -> b.name().equals(name)).findFirst();
  }
}
