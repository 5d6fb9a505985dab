package io.verglas.bench.scale;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import java.time.Duration;

/**
 * {@code scale}: what a table costs while it is idle. The whole stack runs twice in this JVM,
 * one run after the other, on a PostgreSQL catalog ({@link ScaleRun}): first with a small
 * catalog (1 000 tables), then with a large one ({@code --tables N}; 10 000 quick, 100 000
 * full), both with the same active load: 1% of the large catalog's tables take a batch of 20
 * upserts in turn, 20 batches a second for 60 s (quick) or 120 s (the same number of batches in
 * both runs however long a loaded machine takes), then until each batch is visible. The small
 * run is the large run's peer: the difference between the two is what the idle tables cost.
 *
 * <p>Method, per figure: {@code create_tables_per_s}: tables created over Flight by 16 clients
 * at once, with the catalog growing from empty. {@code heap_bytes_per_idle_table_<component>}:
 * for each long-lived component, a process of its own in a deployment ({@code ingest},
 * {@code cache_node}, {@code materializer}, {@code maintenance}; here all in this JVM, the
 * jobs on MiniClusters), the bytes strongly reachable from it ({@link RetainedHeap}), large run
 * minus small run, over the difference in tables, read at the same phase of both runs (every
 * batch committed, two checkpoints later); {@code heap_holders_<component>} names the classes
 * that grew. {@code heap_bytes_per_idle_table} is the largest component's figure;
 * {@code heap_bytes_per_idle_table_jvm} the used heap after full collections, which also holds
 * what the first run left behind. The benchmark itself keeps nothing per table (names are made
 * from indexes). {@code origin_requests_per_idle_table}: the
 * cache nodes' origin requests whose key names an idle table, over the idle tables.
 * {@code catalog_queries_per_idle_table}: the catalog's SQL statements that name an idle table
 * (a counting JDBC driver, {@link CountingCatalogDriver}), over the idle tables. Both count from
 * the start of the push phase until every pushed batch is visible; the push phase starts once
 * creation has settled (the cache node's walks of the new tables' metadata have ended: no
 * origin request named an idle table for 30 s; {@code settle_s}). The maintenance job's
 * periodic sweep runs hourly, outside the window: its cost is not in these figures.
 * {@code checkpoint_bytes_per_active_table}: the materializer's checkpoint directory (its two
 * retained checkpoints with their shared files) at the end, over the active tables.
 * {@code freshness_*}: batch acknowledged → commit of the first snapshot covering it.
 *
 * <p>{@code -Dverglas.bench.scale.push-s=N} changes the push phase,
 * {@code -Dverglas.bench.pg-url=URL} the PostgreSQL server;
 * {@code -Dverglas.bench.scale.heap-paths=true} adds {@code heap_paths_<component>}: what grew,
 * by class and owner path (a slower heap walk).
 */
public final class ScaleBenchmark implements Benchmark {
  /** Set by {@code verglas bench scale --tables N}. */
  public static final String TABLES_PROPERTY = "verglas.bench.scale.tables";
  static final int SMALL_CATALOG = 1_000;

  @Override
  public String name() {
    return "scale";
  }

  @Override
  public String description() {
    return "100 000 tables (quick: 10 000) in a PostgreSQL catalog, 1% active through the whole"
        + " stack: heap, origin requests, catalog queries and freshness per idle table, vs 1 000";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    int tables = Integer.getInteger(TABLES_PROPERTY, quick ? 10_000 : 100_000);
    int active = Math.max(1, tables / 100);
    Duration push = Duration.ofSeconds(Integer.getInteger("verglas.bench.scale.push-s",
        quick ? 60 : 120));
    ScaleTables small = new ScaleTables(Math.max(active, Math.min(SMALL_CATALOG, tables)), active);
    ScaleRun.Figures baseline = ScaleRun.run(small, push);
    print(baseline);
    ScaleRun.Figures large = ScaleRun.run(new ScaleTables(tables, active), push);
    print(large);
    return report(quick, push, baseline, large);
  }

  private static BenchmarkReport report(boolean quick, Duration push, ScaleRun.Figures small,
      ScaleRun.Figures large) {
    int idle = large.tables() - large.active();
    int idleDifference = large.tables() - small.tables();
    double largeP99 = Freshness.quantile(large.freshnessMs(), 0.99);
    double smallP99 = Freshness.quantile(small.freshnessMs(), 0.99);
    BenchmarkReport.Builder report = BenchmarkReport.builder("scale", quick)
        .metric("tables", large.tables())
        .metric("active_tables", large.active())
        .metric("create_tables_per_s", round(large.createTablesPerS()))
        .metric("heap_bytes_per_idle_table", idleDifference == 0 ? "n/a"
            : round(ComponentHeap.largest(small, large, idleDifference)))
        .metric("heap_bytes_per_idle_table_jvm", idleDifference == 0 ? "n/a"
            : round((double) (large.heapAfterPushBytes() - small.heapAfterPushBytes()) / idleDifference))
        .metric("heap_after_push_mb", large.heapAfterPushBytes() >> 20)
        .metric("heap_at_start_mb", large.heapStartBytes() >> 20)
        .metric("checkpoint_bytes_per_active_table", large.checkpointBytes() / large.active())
        .metric("checkpoint_bytes", large.checkpointBytes())
        .metric("origin_requests_per_idle_table", per(large.originRequests().namingIdle(), idle))
        .metric("origin_requests", counts(large.originRequests()))
        .metric("catalog_queries_per_idle_table", per(large.catalogQueries().namingIdle(), idle))
        .metric("catalog_queries", counts(large.catalogQueries()))
        .metric("freshness_p50_ms", Freshness.quantile(large.freshnessMs(), 0.50))
        .metric("freshness_p99_ms", largeP99)
        .metric("pushes", large.pushes())
        .metric("pushes_s", round(large.pushS()))
        .peer("small_catalog_tables", small.tables())
        .peer("small_catalog_pushes", small.pushes())
        .peer("small_catalog_pushes_s", round(small.pushS()))
        .peer("small_catalog_create_tables_per_s", round(small.createTablesPerS()))
        .peer("small_catalog_heap_after_push_mb", small.heapAfterPushBytes() >> 20)
        .peer("small_catalog_checkpoint_bytes", small.checkpointBytes())
        .peer("small_catalog_origin_requests", counts(small.originRequests()))
        .peer("small_catalog_catalog_queries", counts(small.catalogQueries()))
        .peer("small_catalog_freshness_p50_ms", Freshness.quantile(small.freshnessMs(), 0.50))
        .peer("small_catalog_freshness_p99_ms", smallP99)
        .environment("push_s", push.toSeconds())
        .environment("settle_s", round(large.settleS()))
        .environment("small_catalog_settle_s", round(small.settleS()))
        .environment("heap_method", "per component (ingest, cache_node, materializer,"
            + " maintenance; all in this JVM): bytes strongly reachable from its roots, not through"
            + " threads, class loaders or classes, once every pushed batch is committed and two"
            + " checkpoints later; large run minus small run after the same batches, over the extra"
            + " tables; heap_bytes_per_idle_table is the largest, _jvm the used heap after"
            + " System.gc()");
    if (idleDifference > 0) {
      ComponentHeap.report(report, small, large, idleDifference);
    }
    if (smallP99 > 0) {
      report.ratio("freshness_p99_vs_small_catalog", largeP99, smallP99);
    }
    if (small.checkpointBytes() > 0) {
      report.ratio("checkpoint_bytes_vs_small_catalog", large.checkpointBytes(), small.checkpointBytes());
    }
    return report.build();
  }

  private static java.util.Map<String, Long> counts(ScaleCounts.Figures figures) {
    return java.util.Map.of("naming_idle_table", figures.namingIdle(),
        "naming_active_table", figures.namingActive(), "naming_no_table", figures.namingNoTable());
  }

  private static double per(long count, int tables) {
    return tables == 0 ? 0 : round((double) count / tables);
  }

  private static double round(double value) {
    return Math.round(value * 1000.0) / 1000.0;
  }

  private static void print(ScaleRun.Figures figures) {
    System.err.printf("scale: %d tables (%d active): create %.0f/s, heap %d MB (%s), checkpoint %d B,"
            + " catalog %s, origin %s, freshness p50 %.0f ms p99 %.0f ms over %d pushes in %.0f s%n",
        figures.tables(), figures.active(), figures.createTablesPerS(),
        figures.heapAfterPushBytes() >> 20, ComponentHeap.megabytes(figures),
        figures.checkpointBytes(), figures.catalogQueries(),
        figures.originRequests(), Freshness.quantile(figures.freshnessMs(), 0.5),
        Freshness.quantile(figures.freshnessMs(), 0.99), figures.pushes(), figures.pushS());
  }
}
