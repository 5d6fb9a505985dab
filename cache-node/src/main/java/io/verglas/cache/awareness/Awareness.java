package io.verglas.cache.awareness;

import io.verglas.cache.AwarenessStats;
import io.verglas.cache.ImmutableObjects;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A cache node's Iceberg awareness: a {@link CatalogWatcher} following the change feed, a
 * {@link TableWarmer} walking each committed table's metadata into the node's caches, and the
 * immutability learned from that metadata.
 *
 * <p>Lifecycle: {@link #prepare} before the node's read path exists (the read path needs
 * {@link #immutableObjects()}), {@link #start} once the node serves, {@link #close} before the
 * node closes. Only the node's own threads are used: one watcher thread, one warmer thread; the
 * warmer's reads complete on the origin's threads.
 */
public final class Awareness implements AutoCloseable {
  /** Longest a warming read waits for client requests queued at the origin. */
  static final long MAX_YIELD_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final AwarenessConfig config;
  private final MetadataImmutables immutables;
  private final AwarenessCounters counters = new AwarenessCounters();
  private final KnownTables tables;
  private volatile TableWarmer warmer;
  private CatalogWatcher watcher;
  private boolean closed;

  private Awareness(AwarenessConfig config, ImmutableObjects fallback) {
    this.config = config;
    this.immutables = new MetadataImmutables(fallback, config.immutableKeys());
    this.tables = new KnownTables(config.maxTables());
  }

  /** Awareness not yet started; {@code fallback} judges what metadata has not named. */
  public static Awareness prepare(AwarenessConfig config, ImmutableObjects fallback) {
    return new Awareness(Objects.requireNonNull(config, "config"),
        Objects.requireNonNull(fallback, "fallback"));
  }

  /** Immutability from walked metadata, over the fallback: give this to the node's read path. */
  public ImmutableObjects immutableObjects() {
    return immutables;
  }

  /** Starts following the feed and warming through {@code node}. */
  public synchronized void start(NodeCaches node) {
    if (closed || warmer != null) {
      throw new IllegalStateException("Cannot start awareness " + (closed ? "after close" : "twice"));
    }
    CachedReads reads = new CachedReads(node);
    WarmingThrottle throttle = new WarmingThrottle(config.warmConcurrency(),
        new ByteRate(config.warmBytesPerSecond(), System::nanoTime, ByteRate.Sleeper.THREAD),
        node.clientsWaiting(), ByteRate.Sleeper.THREAD, MAX_YIELD_NANOS, counters);
    warmer = new TableWarmer((table, location) -> new MetadataWalk(table, location, reads,
        throttle, immutables, config.tableBudgetBytes(), counters).run(),
        config.warmQueueCapacity(), counters);
    WatcherStateStore store = config.stateDirectory() == null ? null
        : new WatcherStateStore(config.stateDirectory());
    watcher = new CatalogWatcher(config, warmer, tables, store, counters,
        () -> ThreadLocalRandom.current().nextDouble());
    warmer.start();
    watcher.start();
  }

  /** Never waits for {@link #close} (stats may be asked while the node shuts down). */
  public AwarenessStats stats() {
    TableWarmer w = warmer;
    return new AwarenessStats(true, counters.feedConnected, counters.lastSequence,
        counters.eventsHandled.sum(), counters.unknownEventsSkipped.sum(),
        counters.malformedLinesSkipped.sum(), counters.reconnects.sum(), counters.gaps.sum(),
        tables.size(), counters.walksCompleted.sum(), counters.walksFailed.sum(),
        w == null ? 0 : w.pending(), counters.walksCoalesced.sum(), counters.walksDropped.sum(),
        counters.walksSkippedOverBudget.sum(), counters.bytesWarmed.sum(),
        counters.bytesWalked.sum(), counters.yields.sum(), immutables.size(),
        w == null ? java.util.List.of() : w.tablesOverBudget());
  }

  /** Stops the watcher (saving its position) and the warmer; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (watcher != null) {
      watcher.close();
    }
    if (warmer != null) {
      warmer.close();
    }
  }
}
