package io.verglas.cache.awareness;

import io.verglas.cache.AwarenessStats;
import io.verglas.cache.ImmutableObjects;
import io.verglas.cache.s3.ReadObserver;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A cache node's Iceberg awareness: a {@link CatalogWatcher} following the change feed and a
 * {@link CatalogPoller} polling the catalog for other engines' commits (either or both), a
 * {@link TableWarmer} walking each committed table's metadata into the node's caches, the
 * immutability learned from that metadata, the {@link RequestClassifier} mapping the node's
 * reads to (table, partition, column) heat, and the {@link CommitLifecycle} that indexes each
 * walk's files and prefetches a compaction's hot chunks.
 *
 * <p>Lifecycle: {@link #prepare} before the node's read path exists (the read path needs
 * {@link #immutableObjects()} and {@link #readObserver()}), {@link #start} once the node serves,
 * {@link #close} before the node closes. Only the node's own threads are used: one watcher
 * thread, one poller thread, one warmer thread (walks and prefetches), one heat drainer; the warmer's reads
 * complete on the origin's threads.
 */
public final class Awareness implements AutoCloseable {
  /** Longest a warming read waits for client requests queued at the origin. */
  static final long MAX_YIELD_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final AwarenessConfig config;
  private final MetadataImmutables immutables;
  private final AwarenessCounters counters = new AwarenessCounters();
  private final KnownTables tables;
  private final Heat heat;
  private final RequestClassifier classifier;
  private volatile TableWarmer warmer;
  private CatalogWatcher watcher;
  private CatalogPoller poller;
  private boolean closed;

  private Awareness(AwarenessConfig config, ImmutableObjects fallback, LongSupplier nanos,
      LongSupplier wallMillis) {
    this.config = config;
    this.immutables = new MetadataImmutables(fallback, config.immutableKeys());
    this.tables = new KnownTables(config.maxTables());
    HeatSamples samples = new HeatSamples(config.heatSampleBuffer());
    long halfLife = config.heatHalfLife().toNanos();
    HeatStore store = config.stateDirectory() == null ? null
        : new HeatStore(config.stateDirectory(), config.heatSaveMaxEntries(), halfLife, wallMillis);
    this.heat = new Heat(samples, new HeatLedger(halfLife, config.heatMaxEntries(), nanos), halfLife,
        store, config.heatSaveInterval().toMillis());
    this.classifier = new RequestClassifier(samples);
  }

  /** Awareness not yet started; {@code fallback} judges what metadata has not named. */
  public static Awareness prepare(AwarenessConfig config, ImmutableObjects fallback) {
    return prepare(config, fallback, System::nanoTime, System::currentTimeMillis);
  }

  /**
   * As {@link #prepare(AwarenessConfig, ImmutableObjects)}, with heat decaying by {@code nanos}
   * while running and by {@code wallMillis} between a save and a restore.
   */
  static Awareness prepare(AwarenessConfig config, ImmutableObjects fallback, LongSupplier nanos,
      LongSupplier wallMillis) {
    return new Awareness(Objects.requireNonNull(config, "config"),
        Objects.requireNonNull(fallback, "fallback"), Objects.requireNonNull(nanos, "nanos"),
        Objects.requireNonNull(wallMillis, "wallMillis"));
  }

  /** Classifies the node's reads into heat: give this to the node's read path. */
  public ReadObserver readObserver() {
    return classifier;
  }

  /**
   * The table's heat ({@code "ns.table"}): partitions hottest first with their columns, at most
   * {@code limit} partitions; see {@link Heat#report}.
   */
  public Map<String, Object> heat(String table, int limit) {
    Objects.requireNonNull(table, "table");
    if (limit <= 0) {
      throw new IllegalArgumentException("Invalid heat report limit: " + limit + " (must be > 0)");
    }
    return heat.report(table, limit);
  }

  /** Immutability from walked metadata, over the fallback: give this to the node's read path. */
  public ImmutableObjects immutableObjects() {
    return immutables;
  }

  /** Starts following the feed and polling the catalog (as configured), warming through {@code node}. */
  public synchronized void start(NodeCaches node) {
    if (closed || warmer != null) {
      throw new IllegalStateException("Cannot start awareness " + (closed ? "after close" : "twice"));
    }
    CachedReads reads = new CachedReads(node);
    WarmingThrottle throttle = new WarmingThrottle(config.warmConcurrency(),
        new ByteRate(config.warmBytesPerSecond(), System::nanoTime, ByteRate.Sleeper.THREAD),
        node.clientsWaiting(), ByteRate.Sleeper.THREAD, MAX_YIELD_NANOS, counters);
    CommitLifecycle lifecycle = new CommitLifecycle(classifier, heat,
        new Prefetcher(reads, throttle, counters), config, node.blockSize(), counters);
    warmer = new TableWarmer((table, location) -> {
      MetadataWalk walk = new MetadataWalk(table, location, reads, throttle, immutables,
          config.tableBudgetBytes(), counters, classifier.index(), config.indexMaxChunks());
      long bytes = walk.run();
      lifecycle.afterWalk(table, walk.metadata(), walk.layouts());
      return bytes;
    }, config.warmQueueCapacity(), counters,
        new OverBudgetTables(config.tableBudgetRetry().toNanos(), System::nanoTime));
    watcher = config.feedUri() == null ? null : watcher();
    poller = config.catalog() == null ? null : poller(node);
    heat.start();
    warmer.start();
    if (watcher != null) {
      watcher.start();
    }
    if (poller != null) {
      poller.start();
    }
  }

  private CatalogWatcher watcher() {
    WatcherStateStore store = config.stateDirectory() == null ? null
        : new WatcherStateStore(config.stateDirectory());
    return new CatalogWatcher(config, warmer, tables, store, counters,
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /** Table loads are paced by a throttle of their own: one "byte" per load, one load at a time. */
  private CatalogPoller poller(NodeCaches node) {
    WarmingThrottle loads = new WarmingThrottle(1,
        new ByteRate(config.pollTablesPerSecond(), System::nanoTime, ByteRate.Sleeper.THREAD),
        node.clientsWaiting(), ByteRate.Sleeper.THREAD, MAX_YIELD_NANOS, counters);
    return new CatalogPoller(config.catalog(), config.metadataLocations(), config.pollInterval(),
        loads, KnownTables.MAX_KNOWN, warmer, tables, counters);
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
        w == null ? java.util.List.of() : w.tablesOverBudget(), classifier.index().files(),
        classifier.index().chunks(), counters.filesNotIndexed.sum(), classifier.classified(),
        heat.samples().offered(), heat.samples().dropped(), counters.replaceCommits.sum(),
        counters.prefetchBlocks.sum(), counters.prefetchBytes.sum(), counters.prefetchFailures.sum(),
        counters.prefetchChunksOverBudget.sum(), counters.polls.sum(), counters.tablesPolled.sum(),
        counters.commitsPolled.sum(), counters.pollFailures.sum(), heat.restored(),
        counters.tablesReadmitted.sum());
  }

  /** Stops the poller, the watcher (saving its position), the warmer and heat (saving it); idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (poller != null) {
      poller.close();
    }
    if (watcher != null) {
      watcher.close();
    }
    if (warmer != null) {
      warmer.close();
    }
    heat.close();
  }
}
