package io.verglas.cache.writeback;

import io.verglas.cache.origin.Origin;
import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.cluster.peer.PeerClient;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.fragment.FragmentReader;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import io.verglas.cache.writeback.journal.ReplicaJournals;
import io.verglas.cache.writeback.journal.ReplicatedRecords;
import io.verglas.cache.writeback.journal.WriteJournal;
import io.verglas.cache.writeback.peer.FragmentService;
import io.verglas.cache.writeback.peer.JournalRecovery;
import io.verglas.cache.writeback.peer.JournalReplication;
import io.verglas.cache.writeback.peer.PeerFragmentNodes;
import io.verglas.cache.writeback.peer.PeerTransport;
import io.verglas.cache.writeback.peer.ReplicaReconciliation;
import java.nio.file.Files;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * not of the node's disk. In a cluster ({@link #open(WriteBackConfig, Clock, PeerTransport)})
 * each member holds at most one fragment of a write, in {@code fragments/}, and reaches the
 * others' over the peer protocol ({@code writeback.peer}); every journal record is copied to
 * the other members first ({@code replicas/} on each), so every node serves reads of every
 * buffered write, and a coordinator whose journal is new on start (its disk was wiped) takes
 * its pending records back from those copies on its propagation passes, until every member
 * answered, checking each record before it adopts it ({@link #recover}). Restart: the journal
 * is replayed on open, the stager's index rebuilt from its dirty records, and the propagator
 * picks them up on its first pass; the fragments of the last writes the journal marked clean
 * are released again ({@link #releaseRetired}), in case a crash cut their release short, and so
 * are those a retirement could not release (their node not in the view yet, or not answering).
 * Propagation: one thread runs a pass every {@link WriteBackConfig#propagationInterval()};
 * after a pass with failures it waits twice as long as before (up to {@link
 * WriteBackConfig#MAX_PROPAGATION_BACKOFF}), so an origin outage costs one attempt per buffered
 * key per backoff period, and nothing is dropped. Each origin call goes through the node's
 * origin protection (concurrency limit, circuit breaker) since {@link #wrap} is given the
 * protected origin. Scrubbing: every {@value #SCRUB_EVERY_PASSES} passes on the same thread, each
 * scrub followed by a sweep of orphan fragments ({@link OrphanSweep}); in a
 * cluster, reconciling the journal copies kept for other coordinators ({@link #reconcile})
 * every {@value #RECONCILE_EVERY_PASSES}.
 * Threads: staging and reconstruction run on {@value #BLOCKING_THREADS} threads of their own;
 * the writes and fsyncs (local or over the peer protocol) of a write's fragments on one more
 * thread per fragment, in parallel, and the body's MD5 on one more, beside the coding.
 */
public final class WriteBackNode implements AutoCloseable {
  static final int BLOCKING_THREADS = 4;
  static final int SCRUB_EVERY_PASSES = 300;
  static final int RECONCILE_EVERY_PASSES = 50;
  /** How old a journal copy must be before reconciliation may drop it (its coordinator journals after replicating). */
  public static final Duration STALE_COPY_AGE = Duration.ofMinutes(1);
  /** The largest cell in a cluster: one cell and its request header travel in one peer frame. */
  public static final int MAX_CLUSTER_CELL_BYTES = PeerClient.MAX_WRITE_BACK_BYTES - 64;
  /** The precision of an origin's Last-Modified (S3's is a second): how much earlier than this node's start still counts as after it. */
  static final Duration LAST_MODIFIED_PRECISION = Duration.ofSeconds(1);
  private static final Logger LOG = LoggerFactory.getLogger(WriteBackNode.class);

  private final WriteBackConfig config;
  private final Clock clock;
  private final WriteJournal journal;
  private final Supplier<List<FragmentNode>> nodes;
  private final Peers peers;
  private final ExecutorService blocking;
  private final ExecutorService fragmentIo;
  private final ScheduledExecutorService propagation;
  private final Instant opened;
  private final LongAdder acknowledged = new LongAdder();
  private final LongAdder writtenThrough = new LongAdder();
  private final LongAdder recovered = new LongAdder();
  private final AtomicLong repaired = new AtomicLong();
  private final AtomicLong unrepairable = new AtomicLong();
  private final LongAdder orphansRemoved = new LongAdder();
  private WriteBackStager stager;
  private Propagator propagator;
  private Scrubber scrubber;
  private OriginApplier applier;
  private OrphanSweep orphans;
  private Duration backoff;
  private long passes;

  /** The cluster side of a node: the fragment service its peers use, replicas it keeps, its recovery. */
  private record Peers(FragmentService service, ReplicaJournals replicas, ExecutorService executor,
      JournalRecovery recovery, ReplicaReconciliation reconciliation) {}

  private WriteBackNode(WriteBackConfig config, Clock clock, WriteJournal journal, Supplier<List<FragmentNode>> nodes,
      Peers peers) {
    this.config = config;
    this.clock = clock;
    this.journal = journal;
    this.nodes = nodes;
    this.peers = peers;
    this.blocking = Executors.newFixedThreadPool(BLOCKING_THREADS, threads("verglas-writeback-io"));
    this.fragmentIo = Executors.newFixedThreadPool(config.geometry().totalFragments() + 1,
        threads("verglas-writeback-fragment-io"));
    this.propagation = Executors.newSingleThreadScheduledExecutor(threads("verglas-writeback-propagator"));
    this.backoff = config.propagationInterval();
    this.opened = clock.instant();
  }

  /** Opens the node's local stores and replays its journal (a node outside a cluster). */
  public static WriteBackNode open(WriteBackConfig config, Clock clock) throws IOException {
    if (!config.localFragmentStores()) {
      throw new IllegalStateException("Cannot enable write-back on a node outside a cluster without local "
          + "fragment stores: its k+m fragments need k+m nodes; set localFragmentStores or join a cluster");
    }
    int count = config.geometry().totalFragments();
    List<FragmentNode> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = "local-" + i;
      nodes.add(new FragmentNode(id, FragmentStore.open(config.fragmentDirectory().resolve(id),
          Math.max(1, config.fragmentCeilingBytes() / count))));
    }
    List<FragmentNode> fixed = List.copyOf(nodes);
    return new WriteBackNode(config, clock, WriteJournal.open(config.journalFile()), () -> fixed, null);
  }

  /**
   * Opens a cluster member's write-back: its fragment store, the journal copies it keeps for
   * other coordinators and its journal, replicated to the members {@code transport} reaches.
   */
  public static WriteBackNode open(WriteBackConfig config, Clock clock, PeerTransport transport) throws IOException {
    if (config.localFragmentStores()) {
      throw new IllegalStateException("Cannot enable write-back with local fragment stores on a cluster node: the "
          + "other nodes could not read its buffered writes");
    }
    if (config.geometry().cellBytes() > MAX_CLUSTER_CELL_BYTES) {
      throw new IllegalArgumentException("Invalid cell size " + config.geometry().cellBytes() + " for a cluster: "
          + "a cell travels in one peer frame, at most " + MAX_CLUSTER_CELL_BYTES + " bytes");
    }
    boolean lostJournal = Files.notExists(config.journalFile());
    FragmentStore store = FragmentStore.open(config.fragmentDirectory(), config.fragmentCeilingBytes());
    ReplicaJournals replicas = ReplicaJournals.open(config.directory().resolve("replicas"));
    ExecutorService executor = Executors.newFixedThreadPool(BLOCKING_THREADS, threads("verglas-writeback-peer"));
    try {
      WriteJournal journal = WriteJournal.open(config.journalFile(), new JournalReplication(transport));
      JournalRecovery recovery = lostJournal ? new JournalRecovery(transport) : null;
      FragmentService service = new FragmentService(store, replicas, executor, requester -> {
        if (recovery != null && !recovery.complete()) {
          throw new IllegalStateException("Cannot list this node's pending writes: it is recovering its lost journal");
        }
        return journal.pending();
      });
      Peers peers = new Peers(service, replicas, executor, recovery,
          new ReplicaReconciliation(transport, replicas, clock::millis));
      return new WriteBackNode(config, clock, journal, new PeerFragmentNodes(transport, store).nodes(), peers);
    } catch (IOException | RuntimeException e) {
      executor.shutdown();
      replicas.close();
      throw e;
    }
  }

  /** Serves a peer's write-back request (fragments, journal copies) that came on peer connection {@code connection}. */
  public CompletableFuture<byte[]> serve(long connection, byte[] request) {
    if (peers == null) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "Cannot serve a peer's write-back request: this node keeps its fragments locally"));
    }
    return peers.service().serve(connection, request);
  }

  /** Peer connection {@code connection} closed: fragments it left unfinished are abandoned. */
  public void disconnected(long connection) {
    if (peers != null) {
      peers.service().disconnected(connection);
    }
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
    applier = new OriginApplier(origin);
    stager = WriteBackStager.builder(config, journal).nodes(nodes).origin(applier).clock(clock::millis)
        .writeIds(() -> UUID.randomUUID().toString()).fragmentIo(fragmentIo)
        .replicated(peers == null ? ReplicatedRecords.NONE : peers.replicas()).build();
    propagator = new Propagator(stager, journal, applier);
    scrubber = new Scrubber(stager);
    orphans = new OrphanSweep(nodes, stager::liveWrites, clock::millis);
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
      releaseRetired();
      recover();
      Propagator.Pass pass = propagator.runOnce();
      failed = pass.failed() > 0;
      if (failed) {
        LOG.debug("Write-back propagation: {} failed ({}), retrying in {}", pass.failed(), pass.lastError(), backoff);
      }
      if (++passes % SCRUB_EVERY_PASSES == 0) {
        scrub();
        removeOrphans(config.orphanGracePeriod());
      }
      if (passes % RECONCILE_EVERY_PASSES == 0) {
        reconcile(STALE_COPY_AGE);
      }
    } catch (IOException | RuntimeException e) {
      failed = true;
      LOG.warn("Cannot run a write-back propagation pass: {}", e.getMessage(), e);
    }
    backoff = failed ? min(backoff.multipliedBy(2), WriteBackConfig.MAX_PROPAGATION_BACKOFF)
        : config.propagationInterval();
    schedule(backoff);
  }

  /**
   * Releases again the fragments of retired writes that are not released yet: those of the last
   * writes the journal had marked clean when it was opened (a crash may have cut their release
   * short) and those whose node was not in the view or did not answer when their write was
   * retired (a restarted coordinator retires the writes an earlier attempt delivered before its
   * view lists the other members). Tried on each pass, each write for at most {@value
   * UnreleasedFragments#MAX_ATTEMPTS} passes (the cluster view may still be forming); what
   * remains is the orphan sweep's. Returns how many writes are left.
   */
  public synchronized int releaseRetired() {
    return stager == null ? 0 : stager.releaseAgain();
  }

  /**
   * While this coordinator's journal was lost (new on start), adopts the records the members not
   * asked yet keep for it; returns how many it adopted now. Also the first step of every pass.
   *
   * <p>Each record is checked first: a write must still have {@code k} fragments ({@link
   * #intact}); a write or a delete whose key was written at the origin since this node started
   * (any such write is later than every change the lost journal held: a write through this node
   * since then, another node's or one outside the cache) is superseded and retired, never
   * applied; so is one a later change of the key here supersedes ({@link WriteBackStager#adopt}).
   * Without the check, a recovered delete would remove the newer object from the origin, and a
   * recovered write would overwrite it. A record whose origin check fails is held back and
   * checked again on the next pass.
   */
  public synchronized int recover() throws IOException {
    JournalRecovery recovery = peers == null ? null : peers.recovery();
    if (recovery == null || recovery.complete()) {
      return 0;
    }
    int adopted = 0;
    List<JournalRecord.Pending> records = recovery.fetch();
    Set<ObjectIdentity> known = journal.pending().stream().map(JournalRecord::identity).collect(Collectors.toSet());
    for (JournalRecord.Pending record : records) {
      if (known.contains(record.identity()) || !intact(record)) {
        continue;
      }
      boolean changed;
      try {
        changed = writtenSinceStart(record);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Cannot check the recovered change {} at the origin: {}; next pass", record.identity(), e.toString());
        recovery.holdBack(record);
        continue;
      }
      if (stager.adopt(record, changed)) {
        recovered.increment();
        adopted++;
      } else {
        LOG.info("Write-back recovery retires {}: a later change of its key is known", record.identity());
      }
    }
    return adopted;
  }

  /** Whether the origin's object of the record's key was written since this node started (its journal was lost). */
  private boolean writtenSinceStart(JournalRecord.Pending record) throws IOException {
    Optional<Instant> written = applier.lastModified(record.identity().bucket(), record.identity().key());
    return written.isPresent() && !written.get().isBefore(opened.minus(LAST_MODIFIED_PRECISION));
  }

  /**
   * Whether a recovered write still has {@code k} fragments on live nodes: a copy whose write
   * was delivered and released (its holder missed the clean mark) has not, and is left out.
   */
  private boolean intact(JournalRecord.Pending record) {
    if (!(record instanceof JournalRecord.Staged staged)) {
      return true;
    }
    int found = 0;
    for (Placement p : staged.placements()) {
      Optional<FragmentNode> node = nodes.get().stream().filter(n -> n.id().equals(p.nodeId())).findFirst();
      try (FragmentReader reader = node.isPresent() ? node.get().store().open(staged.identity(), p.fragment()) : null) {
        found += reader == null ? 0 : 1;
      } catch (IOException e) {
        // absent, unreachable or damaged
      }
    }
    if (found < staged.geometry().dataFragments()) {
      LOG.warn("Write-back recovery leaves out {}: {} of its fragments found, k={} (delivered and released, or lost)",
          staged.identity(), found, staged.geometry().dataFragments());
    }
    return found >= staged.geometry().dataFragments();
  }

  /**
   * Drops the journal copies this node keeps whose coordinators no longer hold their writes
   * (missed clean marks), but for copies younger than {@code minAge}; returns how many. Also
   * every {@value #RECONCILE_EVERY_PASSES} passes, with {@link #STALE_COPY_AGE}.
   */
  public int reconcile(Duration minAge) {
    return peers == null ? 0 : peers.reconciliation().runOnce(minAge.toMillis());
  }

  /** Records this node took back from its peers' copies after losing its journal. */
  public long recovered() {
    return recovered.sum();
  }

  /** One scrub pass now (also every {@value #SCRUB_EVERY_PASSES} propagation passes). */
  public Scrubber.Report scrub() throws IOException {
    Scrubber.Report report = scrubber.runOnce();
    repaired.addAndGet(report.repaired());
    unrepairable.set(report.unrepairable());
    return report;
  }

  /**
   * Removes the fragments of this node's stores that no live write names and that are older than
   * {@code grace} ({@link OrphanSweep}); returns how many. Nothing while this node is recovering
   * its lost journal. Also after every scrub, with {@link WriteBackConfig#orphanGracePeriod}.
   */
  public int removeOrphans(Duration grace) throws IOException {
    if (peers != null && peers.recovery() != null && !peers.recovery().complete()) {
      return 0;
    }
    int removed = orphans.runOnce(grace);
    orphansRemoved.add(removed);
    if (removed > 0) {
      LOG.info("Write-back removed {} orphan fragments (no journal record names them, older than {})", removed, grace);
    }
    return removed;
  }

  /** One propagation pass now (recovery first), on the caller's thread (tests, and draining before a stop). */
  public Propagator.Pass propagate() throws IOException {
    recover();
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
        started ? propagator.failures() : 0, started ? propagator.superseded() : 0, started ? propagator.deferred() : 0,
        started ? propagator.conflicts() : 0, repaired.get(), unrepairable.get(), orphansRemoved.sum());
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
      if (peers != null) {
        peers.executor().shutdownNow();
        peers.replicas().close();
      }
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
