package io.verglas.bench.scale;

import io.verglas.bench.BenchmarkReport;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The scale benchmark's per-component heap figures: for each long-lived component (a process of
 * its own in a deployment), what the large run's component retains beyond the small run's, over
 * the extra tables, and the classes that hold it.
 */
final class ComponentHeap {
  /** Classes named per component: the largest growth. */
  private static final int HOLDERS = 6;
  /** Owner paths named per component when traced ({@code verglas.bench.scale.heap-paths}). */
  private static final int PATHS = 12;

  private ComponentHeap() {}

  /** Bytes per extra table of the component that grew most. */
  static double largest(ScaleRun.Figures small, ScaleRun.Figures large, int tables) {
    return large.componentHeap().keySet().stream()
        .mapToDouble(name -> perTable(small, large, name, tables)).max().orElse(0);
  }

  /**
   * {@code heap_bytes_per_idle_table_<component>} and {@code heap_holders_<component>} (bytes
   * per extra table by class) for each component; the small run's figures as peers.
   */
  static void report(BenchmarkReport.Builder report, ScaleRun.Figures small,
      ScaleRun.Figures large, int tables) {
    large.componentHeap().forEach((name, footprint) -> {
      report.metric("heap_bytes_per_idle_table_" + name,
          Math.round(perTable(small, large, name, tables) * 10.0) / 10.0);
      report.metric("heap_retained_mb_" + name, footprint.bytes() >> 20);
      RetainedHeap.Footprint before = small.componentHeap().get(name);
      if (before != null) {
        report.peer("small_catalog_heap_retained_mb_" + name, before.bytes() >> 20);
        report.metric("heap_holders_" + name,
            RetainedHeap.perTable(before.classes(), footprint.classes(), tables, HOLDERS));
        if (!footprint.paths().isEmpty()) {
          report.metric("heap_paths_" + name,
              RetainedHeap.perTable(before.paths(), footprint.paths(), tables, PATHS));
        }
      }
    });
  }

  /** "ingest 12 MB, cache_node 40 MB, ...". */
  static String megabytes(ScaleRun.Figures figures) {
    return figures.componentHeap().entrySet().stream()
        .map(e -> e.getKey() + " " + (e.getValue().bytes() >> 20) + " MB")
        .collect(Collectors.joining(", "));
  }

  private static double perTable(ScaleRun.Figures small, ScaleRun.Figures large, String name,
      int tables) {
    Map<String, RetainedHeap.Footprint> before = small.componentHeap();
    long smallBytes = before.containsKey(name) ? before.get(name).bytes() : 0;
    return (double) (large.componentHeap().get(name).bytes() - smallBytes) / tables;
  }
}
