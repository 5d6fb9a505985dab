package io.verglas.cache.writeback;

import io.verglas.cache.origin.Origin;
import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write-back on one cache node: its fragment stores, journal, stager, the origin view that
 * buffers writes ({@link #wrap}) and the background propagation and scrubbing.
 *
 * <p>Design. Fragment stores: in {@link WriteBackConfig#localFragmentStores() local} mode the
 * {@code k + m} stores are directories of this node ({@code fragments/local-0} ...), each with
 * an equal share of the fragment ceiling; a write then survives the loss of fragment files but
 * not of the node's disk. Fragments on other cluster nodes are not built: opening a node
 * without local mode fails saying so. Restart: the journal is replayed on open, the stager's
 * index rebuilt from its dirty records, and the propagator picks them up on its first pass.
 * Propagation: one thread runs a pass every {@link WriteBackConfig#propagationInterval()};
 * after a pass with failures it waits twice as long as before (up to {@link
 * WriteBackConfig#MAX_PROPAGATION_BACKOFF}), so an origin outage costs one attempt per buffered
 * key per backoff period, and nothing is dropped. Each origin call goes through the node's
 * origin protection (concurrency limit, circuit breaker) since {@link #wrap} is given the
 * protected origin. Scrubbing: every {@value #SCRUB_EVERY_PASSES} passes on the same thread.
 * Threads: staging and reconstruction run on {@value #BLOCKING_THREADS} threads of their own;
 * the writes and fsyncs of a write's fragments on one more thread per fragment store, in
 * parallel, and the body's MD5 on one more, beside the coding.
 */
public final class WriteBackNode implements AutoCloseable {
  static final int BLOCKING_THREADS = 4;
  static final int SCRUB_EVERY_PASSES = 300;
  private static final Logger LOG = LoggerFactory.getLogger(WriteBackNode.class);

  private final WriteBackConfig config;
  private final Clock clock;
  private final WriteJournal journal;
  private final List<FragmentNode> nodes;
  private final ExecutorService blocking;
  private final ExecutorService fragmentIo;
  private final ScheduledExecutorService propagation;
  private final LongAdder acknowledged = new LongAdder();
  private final LongAdder writtenThrough = new LongAdder();
  private final AtomicLong repaired = new AtomicLong();
  private final AtomicLong unrepairable = new AtomicLong();
  private WriteBackStager stager;
  private Propagator propagator;
  private Scrubber scrubber;
  private Duration backoff;
  private long passes;

  private WriteBackNode(WriteBackConfig config, Clock clock, WriteJournal journal, List<FragmentNode> nodes) {
    this.config = config;
    this.clock = clock;
    this.journal = journal;
    this.nodes = List.copyOf(nodes);
    this.blocking = Executors.newFixedThreadPool(BLOCKING_THREADS, threads("verglas-writeback-io"));
    this.fragmentIo = Executors.newFixedThreadPool(nodes.size() + 1, threads("verglas-writeback-fragment-io"));
    this.propagation = Executors.newSingleThreadScheduledExecutor(threads("verglas-writeback-propagator"));
    this.backoff = config.propagationInterval();
  }

  /** Opens the node's stores and replays its journal. */
  public static WriteBackNode open(WriteBackConfig config, Clock clock) throws IOException {
    if (!config.localFragmentStores()) {
      throw new IllegalStateException("Cannot enable write-back across cluster nodes: fragments over the peer "
          + "protocol are not built yet; set localFragmentStores to keep all k+m fragments on this node");
    }
    int count = config.geometry().totalFragments();
    List<FragmentNode> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = "local-" + i;
      nodes.add(new FragmentNode(id, FragmentStore.open(config.fragmentDirectory().resolve(id),
          Math.max(1, config.fragmentCeilingBytes() / count))));
    }
    return new WriteBackNode(config, clock, WriteJournal.open(config.journalFile()), nodes);
  }

  public WriteBackConfig config() {
    return config;
  }

  /**
   * The origin as clients of this node see it: {@code origin} with this node's buffered writes
   * laid over it; starts propagating to {@code origin}. Called once.
   */
  public synchronized Origin wrap(Origin origin) {
    if (stager != null) {
      throw new IllegalStateException("Cannot wrap a second origin with one write-back node");
    }
    OriginApplier applier = new OriginApplier(origin);
    stager = new WriteBackStager(config, journal, () -> nodes, applier, clock::millis,
        () -> UUID.randomUUID().toString(), fragmentIo);
    propagator = new Propagator(stager, journal, applier);
    scrubber = new Scrubber(stager);
    schedule(config.propagationInterval());
    return new WriteBackOrigin(origin, config, stager, propagator, blocking, this::counted);
  }

  private void counted(StageOutcome outcome) {
    (outcome instanceof StageOutcome.Acknowledged ? acknowledged : writtenThrough).increment();
  }

  private void schedule(Duration delay) {
    try {
      propagation.schedule(this::pass, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed
    }
  }

  private void pass() {
    boolean failed;
    try {
      Propagator.Pass pass = propagator.runOnce();
      failed = pass.failed() > 0;
      if (failed) {
        LOG.debug("Write-back propagation: {} failed ({}), retrying in {}", pass.failed(), pass.lastError(), backoff);
      }
      if (++passes % SCRUB_EVERY_PASSES == 0) {
        scrub();
      }
    } catch (IOException | RuntimeException e) {
      failed = true;
      LOG.warn("Cannot run a write-back propagation pass: {}", e.getMessage(), e);
    }
    backoff = failed ? min(backoff.multipliedBy(2), WriteBackConfig.MAX_PROPAGATION_BACKOFF)
        : config.propagationInterval();
    schedule(backoff);
  }

  /** One scrub pass now (also every {@value #SCRUB_EVERY_PASSES} propagation passes). */
  public Scrubber.Report scrub() throws IOException {
    Scrubber.Report report = scrubber.runOnce();
    repaired.addAndGet(report.repaired());
    unrepairable.set(report.unrepairable());
    return report;
  }

  /** One propagation pass now, on the caller's thread (tests, and draining before a stop). */
  public Propagator.Pass propagate() throws IOException {
    return propagator.runOnce();
  }

  public WriteBackStats stats() {
    List<JournalRecord.Pending> pending = journal.pending();
    long bytes = 0;
    long oldest = Long.MAX_VALUE;
    for (JournalRecord.Pending p : pending) {
      bytes += p instanceof JournalRecord.Staged s ? s.bodyLength() : 0;
      oldest = Math.min(oldest, p.stagedAtMillis());
    }
    long age = pending.isEmpty() ? 0 : Math.max(0, clock.millis() - oldest);
    boolean started = propagator != null;
    return new WriteBackStats(pending.size(), bytes, age, acknowledged.sum(), writtenThrough.sum(),
        started ? propagator.propagated() : 0, started ? propagator.propagatedBytes() : 0,
        started ? propagator.failures() : 0, repaired.get(), unrepairable.get());
  }

  @Override
  public void close() {
    propagation.shutdownNow();
    blocking.shutdown();
    try {
      propagation.awaitTermination(10, TimeUnit.SECONDS);
      blocking.awaitTermination(10, TimeUnit.SECONDS);
      fragmentIo.shutdown(); // after the stagings, which wait for their fragments' writes
      fragmentIo.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      journal.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close the write journal: " + e.getMessage(), e);
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
