package io.verglas.cache.awareness;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heat side of awareness: the sample buffer the request path fills, the ledger it drains
 * into, and the thread that drains it every {@link #DRAIN_INTERVAL_MILLIS} ms (the prefetcher
 * and the admin report drain too, so they see every read made before they ask). With a
 * {@link HeatStore}, the ledger is restored from it at start and saved to it every
 * {@code saveInterval} on the same thread, and once more on close.
 */
final class Heat implements AutoCloseable {
  static final long DRAIN_INTERVAL_MILLIS = 100;
  private static final Logger LOG = LoggerFactory.getLogger(Heat.class);

  private final HeatSamples samples;
  private final HeatLedger ledger;
  private final long halfLifeNanos;
  private final HeatStore store;
  private final long saveIntervalMillis;
  private ScheduledExecutorService drainer;
  private volatile int restored;

  /** Heat kept in memory only. */
  Heat(HeatSamples samples, HeatLedger ledger, long halfLifeNanos) {
    this(samples, ledger, halfLifeNanos, null, 0);
  }

  /** Heat saved to {@code store} (if not null) every {@code saveIntervalMillis} and on close. */
  Heat(HeatSamples samples, HeatLedger ledger, long halfLifeNanos, HeatStore store, long saveIntervalMillis) {
    if (store != null && saveIntervalMillis <= 0) {
      throw new IllegalArgumentException("Invalid heat save interval: " + saveIntervalMillis + " ms (must be > 0)");
    }
    this.samples = samples;
    this.ledger = ledger;
    this.halfLifeNanos = halfLifeNanos;
    this.store = store;
    this.saveIntervalMillis = saveIntervalMillis;
  }

  HeatSamples samples() {
    return samples;
  }

  HeatLedger ledger() {
    return ledger;
  }

  /** Restores the saved heat (if any), then drains (and saves) periodically. */
  synchronized void start() {
    if (store != null) {
      restored = store.restore(ledger);
    }
    drainer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "verglas-heat-drainer");
      t.setDaemon(true);
      t.setPriority(Thread.MIN_PRIORITY);
      return t;
    });
    drainer.scheduleWithFixedDelay(this::drain, DRAIN_INTERVAL_MILLIS, DRAIN_INTERVAL_MILLIS,
        TimeUnit.MILLISECONDS);
    if (store != null) {
      drainer.scheduleWithFixedDelay(this::save, saveIntervalMillis, saveIntervalMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Entries restored from the saved ledger at start. */
  int restored() {
    return restored;
  }

  /** Drains, then saves the ledger; a failure is logged (the next save tries again). */
  private void save() {
    drain();
    try {
      store.save(ledger);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot save the heat ledger (retrying in {} ms): {}", saveIntervalMillis, e.toString());
    }
  }

  /** Moves the buffered samples into the ledger. */
  void drain() {
    samples.drain(ledger::record);
  }

  /**
   * The table's heat as a JSON-able report: partitions hottest first (a partition's heat is the
   * sum of its columns'), each with its columns hottest first; at most {@code limit} partitions.
   */
  Map<String, Object> report(String table, int limit) {
    drain();
    Map<String, Double> partitionHeat = new LinkedHashMap<>();
    Map<String, List<Map<String, Object>>> columns = new LinkedHashMap<>();
    for (HeatLedger.Heat h : ledger.table(table)) {
      String partition = h.at().partition();
      partitionHeat.merge(partition, h.heat(), Double::sum);
      Map<String, Object> column = new LinkedHashMap<>();
      column.put("column", h.at().column());
      column.put("heat", round(h.heat()));
      columns.computeIfAbsent(partition, p -> new ArrayList<>()).add(column);
    }
    List<Map<String, Object>> partitions = new ArrayList<>();
    partitionHeat.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .limit(limit)
        .forEach(e -> {
          Map<String, Object> partition = new LinkedHashMap<>();
          partition.put("partition", e.getKey());
          partition.put("heat", round(e.getValue()));
          partition.put("columns", columns.get(e.getKey()));
          partitions.add(partition);
        });
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("table", table);
    report.put("halfLifeSeconds", halfLifeNanos / 1_000_000_000.0);
    report.put("partitions", partitions);
    report.put("samplesOffered", samples.offered());
    report.put("samplesDropped", samples.dropped());
    return report;
  }

  private static double round(double heat) {
    return Math.round(heat * 1000) / 1000.0;
  }

  @Override
  public synchronized void close() {
    if (drainer == null) {
      return;
    }
    drainer.shutdownNow();
    try {
      drainer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    drainer = null;
    if (store != null) {
      save();
    }
  }
}
