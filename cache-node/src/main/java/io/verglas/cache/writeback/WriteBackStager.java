package io.verglas.cache.writeback;

import io.verglas.cache.writeback.code.BodyDigest;
import io.verglas.cache.writeback.code.DecodedBody;
import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.code.StripeDecoder;
import io.verglas.cache.writeback.code.StripeEncoder;
import io.verglas.cache.writeback.fragment.FragmentCells;
import io.verglas.cache.writeback.fragment.FragmentHeader;
import io.verglas.cache.writeback.fragment.FragmentOutput;
import io.verglas.cache.writeback.fragment.FragmentReader;
import io.verglas.cache.writeback.fragment.FragmentSink;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import io.verglas.cache.writeback.journal.ReplicatedRecords;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Stages write-back PUTs as erasure-coded fragments on distinct nodes and serves them back by
 * reconstruction: the quorum path of one coordinator, over fragment stores in this JVM.
 *
 * <p>Design. Placement: the object's candidate nodes in rendezvous order ({@link
 * FragmentPlacement}), keeping those whose store has room for a fragment; fragment {@code i}
 * goes to the {@code i}-th, one per node. Acknowledgment: the body is encoded one stripe at a
 * time into the chosen stores; a fragment counts once its store committed it (file and
 * directory fsynced; the fragments are written and committed in parallel, one task per
 * fragment, and every commit is awaited); with at least {@code w} counted, the journal record
 * (identity, metadata, geometry, placements) is appended and fsynced, and only then does {@link
 * #put} return {@link StageOutcome.Acknowledged}. There is no other path to that outcome. Degraded: fewer than
 * {@code w} nodes with room before the body is read: the body goes to the origin as it is;
 * fewer than {@code w} but at least {@code k} durable after it: the body is reconstructed from
 * the fragments and written to the origin before returning, and the fragments released; fewer
 * than {@code k}: {@link WriteBackFailedException}, fragments released, nothing journaled.
 * Reads: a per-key index points at the latest acknowledged write (the last acknowledged write
 * wins: a key's index updates happen in its journal order, under the key's lock, which also
 * orders the replication of its records; a slow peer replicating one key's record holds up no other key); it is rebuilt from the journal's
 * dirty set on start. Beside it, every pending change of a key ({@link PendingChanges}: what a
 * PUT's origin expectation and a drain read) is indexed the same way, so neither walks the journal.
 * Time and write ids are injected.
 *
 * <p>Fragment nodes are whatever {@code nodes} supplies: local stores, or the cluster's members
 * over the peer protocol ({@code writeback.peer}); journal replication is the journal's. Not
 * here yet: stragglers after the acknowledgment.
 * Propagation to the origin is {@link Propagator}'s ({@link #superseded}, {@link #retire}),
 * verification and repair the {@link Scrubber}'s ({@link #replace}). Memory per PUT:
 * {@code 2 * (k + m) * cell} bytes (two stripes: one being coded, one being written); per GET
 * {@code (k + m) * cell}.
 */
public final class WriteBackStager {
  /** Stripes of the per-key lock that orders a key's journal appends and index updates. */
  static final int KEY_LOCKS = 256;
  private final WriteBackConfig config;
  private final WriteJournal journal;
  private final Supplier<List<FragmentNode>> nodes;
  private final OriginWriter origin;
  private final LongSupplier clock;
  private final Supplier<String> writeIds;
  private final Executor fragmentIo;
  private final ReplicatedRecords others;
  private final Map<String, JournalRecord.Pending> latest = new ConcurrentHashMap<>();
  private final PendingChanges own;
  private final Object[] keyLocks = new Object[KEY_LOCKS];
  private final Set<ObjectIdentity> staging = ConcurrentHashMap.newKeySet();
  private final UnreleasedFragments unreleased = new UnreleasedFragments();
  private final Object stamps = new Object();
  /** The last acknowledgement stamp given (guarded by {@code stamps}); read from the journal on first use. */
  private long lastStamp = Long.MIN_VALUE;

  private WriteBackStager(Builder builder) {
    this.config = builder.config;
    this.journal = builder.journal;
    this.nodes = required(builder.nodes, "nodes");
    this.origin = required(builder.origin, "origin");
    this.clock = required(builder.clock, "clock");
    this.writeIds = required(builder.writeIds, "writeIds");
    this.fragmentIo = builder.fragmentIo;
    this.others = builder.others;
    Arrays.setAll(keyLocks, i -> new Object());
    List<JournalRecord.Pending> journaled = journal.pending();
    journaled.forEach(r -> latest.put(indexKey(r.identity().bucket(), r.identity().key()), r));
    this.own = new PendingChanges(journaled);
    journal.retiredAtReplay().forEach(r -> unreleased.add(r, r.placements()));
  }

  private static <T> T required(T value, String name) {
    if (value == null) {
      throw new IllegalStateException("Cannot build a write-back stager: no " + name + " set");
    }
    return value;
  }

  /** A stager over {@code journal} (its dirty records indexed at {@link Builder#build}); see {@link Builder}. */
  public static Builder builder(WriteBackConfig config, WriteJournal journal) {
    return new Builder(config, journal);
  }

  /**
   * Options of a {@link WriteBackStager}: {@code nodes}, {@code origin}, {@code clock} and {@code
   * writeIds} must be set; fragment writes run on the caller's thread and no other coordinator's
   * records are laid under this one's unless {@link #fragmentIo} and {@link #replicated} say otherwise.
   */
  public static final class Builder {
    private final WriteBackConfig config;
    private final WriteJournal journal;
    private Supplier<List<FragmentNode>> nodes;
    private OriginWriter origin;
    private LongSupplier clock;
    private Supplier<String> writeIds;
    private Executor fragmentIo = Runnable::run;
    private ReplicatedRecords others = ReplicatedRecords.NONE;

    private Builder(WriteBackConfig config, WriteJournal journal) {
      this.config = Objects.requireNonNull(config, "config");
      this.journal = Objects.requireNonNull(journal, "journal");
    }

    /** The live nodes that may take fragments (this one among them). */
    public Builder nodes(Supplier<List<FragmentNode>> value) {
      this.nodes = Objects.requireNonNull(value, "nodes");
      return this;
    }

    /** Where degraded writes go through (before the body, or reconstructed after a shortfall). */
    public Builder origin(OriginWriter value) {
      this.origin = Objects.requireNonNull(value, "origin");
      return this;
    }

    /** Epoch millis for the journal's staged time. */
    public Builder clock(LongSupplier value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Pod-unique write ids. */
    public Builder writeIds(Supplier<String> value) {
      this.writeIds = Objects.requireNonNull(value, "writeIds");
      return this;
    }

    /**
     * Runs the writes and commits (file and directory fsyncs) of a write's fragments, one task per
     * fragment and step, so that they overlap each other and the coding of the next stripe; {@link
     * #put} waits for them, so it must not be a bounded pool that also runs {@code put}.
     */
    public Builder fragmentIo(Executor value) {
      this.fragmentIo = Objects.requireNonNull(value, "fragmentIo");
      return this;
    }

    /** The records other coordinators replicated to this node, laid under its own. */
    public Builder replicated(ReplicatedRecords value) {
      this.others = Objects.requireNonNull(value, "replicated");
      return this;
    }

    /** @throws IllegalStateException naming the first required option not set */
    public WriteBackStager build() {
      return new WriteBackStager(this);
    }
  }

  public WriteBackConfig config() {
    return config;
  }

  /** Stages a PUT of {@code length} bytes; see the class comment for the outcomes. */
  public StageOutcome put(String bucket, String key, Map<String, String> metadata, long length, InputStream body)
      throws IOException {
    return put(bucket, key, md5 -> metadata, length, body, origin);
  }

  /**
   * As {@link #put(String, String, Map, long, InputStream)}, with the metadata made from the
   * body's MD5 once the body has been read (the MD5 is computed from the stripes as they are
   * coded; null when the body is written through before it is read), and writes through going to
   * {@code through} (given the body and the metadata as it is at that moment).
   */
  public StageOutcome put(String bucket, String key, Function<byte[], Map<String, String>> metadata, long length,
      InputStream body, OriginWriter through) throws IOException {
    ObjectIdentity id = new ObjectIdentity(bucket, key, writeIds.get());
    staging.add(id);
    try {
      return stage(id, metadata, length, body, through);
    } finally {
      staging.remove(id); // after its record was journaled, or its fragments released
    }
  }

  private StageOutcome stage(ObjectIdentity id, Function<byte[], Map<String, String>> metadata, long length,
      InputStream body, OriginWriter through) throws IOException {
    String bucket = id.bucket();
    String key = id.key();
    Geometry geometry = config.geometry();
    List<FragmentNode> chosen = choose(id, geometry, length);
    if (chosen.size() < config.ackFragments()) {
      through.put(bucket, key, metadata.apply(null), length, body);
      return new StageOutcome.WrittenThrough("only " + chosen.size() + " nodes have room for a fragment, w="
          + config.ackFragments());
    }
    FragmentSink sink = open(id, geometry, length, chosen);
    BodyDigest md5 = new BodyDigest(geometry, length, fragmentIo);
    List<Integer> durable;
    try {
      encode(id, length, body, new StripeEncoder(geometry, sink.andThen(md5)));
      durable = sink.commit();
    } catch (IOException | RuntimeException e) {
      md5.release();
      sink.abandon();
      throw e;
    }
    return settle(id, metadata.apply(md5.digest()), length, chosen, durable, sink, through);
  }

  private List<FragmentNode> choose(ObjectIdentity id, Geometry geometry, long length) {
    long bytes = new FragmentHeader(id, geometry, 0, length).fileLength();
    return FragmentPlacement.order(id.bucket(), id.key(), nodes.get()).stream()
        .filter(n -> n.store().hasRoomFor(bytes)).limit(geometry.totalFragments()).toList();
  }

  private FragmentSink open(ObjectIdentity id, Geometry geometry, long length, List<FragmentNode> chosen) {
    List<FragmentOutput> outputs = new ArrayList<>();
    for (int i = 0; i < geometry.totalFragments(); i++) {
      outputs.add(i < chosen.size() ? create(chosen.get(i), new FragmentHeader(id, geometry, i, length)) : null);
    }
    return new FragmentSink(outputs, fragmentIo);
  }

  /** The node's output, or null when it cannot take the fragment after all (an erasure from the start). */
  static FragmentOutput create(FragmentNode node, FragmentHeader header) {
    try {
      return node.store().create(header);
    } catch (IOException e) {
      return null;
    }
  }

  private static void encode(ObjectIdentity id, long length, InputStream body, StripeEncoder encoder)
      throws IOException {
    long read = encoder.transfer(body, length);
    if (read < length || body.read() >= 0) {
      throw new IOException("Cannot stage PUT of " + id.bucket() + "/" + id.key() + ": the body "
          + (read < length ? "ended after " + read + " of" : "is longer than") + " the " + length + " bytes declared");
    }
    encoder.finish();
  }

  private StageOutcome settle(ObjectIdentity id, Map<String, String> metadata, long length, List<FragmentNode> chosen,
      List<Integer> durable, FragmentSink sink, OriginWriter through) throws IOException {
    List<Placement> placements = durable.stream().map(i -> new Placement(i, chosen.get(i).id())).toList();
    JournalRecord.Staged record = new JournalRecord.Staged(id, length, metadata, config.geometry(), placements,
        clock.getAsLong());
    if (durable.size() >= config.ackFragments()) {
      return acknowledge(record);
    }
    try {
      if (durable.size() < config.geometry().dataFragments()) {
        WriteBackFailedException failure = new WriteBackFailedException("Cannot stage PUT of " + id.bucket() + "/"
            + id.key() + ": only " + durable.size() + " fragments durable, k=" + config.geometry().dataFragments());
        firstFailure(sink).ifPresent(failure::initCause);
        throw failure;
      }
      try (InputStream body = open(record)) {
        through.put(id.bucket(), id.key(), metadata, length, body);
      }
      return new StageOutcome.WrittenThrough("only " + durable.size() + " fragments durable, w="
          + config.ackFragments() + ": reconstructed and written to the origin");
    } finally {
      release(record);
    }
  }

  private StageOutcome acknowledge(JournalRecord.Staged staged) throws IOException {
    JournalRecord.Staged record;
    synchronized (lock(staged.identity())) {
      record = staged.stampedAt(stamp(staged.identity().bucket(), staged.identity().key()));
      try {
        journaled(record);
      } catch (IOException | RuntimeException e) {
        release(record);
        throw e;
      }
      latest.put(indexKey(record.identity().bucket(), record.identity().key()), record);
    }
    return new StageOutcome.Acknowledged(record);
  }

  private Optional<IOException> firstFailure(FragmentSink sink) {
    for (int i = 0; i < config.geometry().totalFragments(); i++) {
      if (sink.failure(i) != null) {
        return Optional.of(sink.failure(i));
      }
    }
    return Optional.empty();
  }

  /** The latest acknowledged, unpropagated write of the key (empty as well when that is a delete). */
  public Optional<JournalRecord.Staged> dirty(String bucket, String key) {
    return latest(bucket, key).filter(JournalRecord.Staged.class::isInstance).map(JournalRecord.Staged.class::cast);
  }

  /**
   * The latest acknowledged change of the key not yet applied to the origin: a write or a
   * delete, this node's or one another coordinator replicated here (the later staged wins).
   */
  public Optional<JournalRecord.Pending> latest(String bucket, String key) {
    return Optional.ofNullable(later(latest.get(indexKey(bucket, key)), others.latest(bucket, key).orElse(null)));
  }

  /** The latest pending change of every key of {@code bucket} starting with {@code prefix}. */
  public List<JournalRecord.Pending> latestUnder(String bucket, String prefix) {
    String start = indexKey(bucket, prefix);
    Map<String, JournalRecord.Pending> merged = new HashMap<>();
    others.latestUnder(bucket, prefix).forEach(r -> merged.put(indexKey(bucket, r.identity().key()), r));
    latest.entrySet().stream().filter(e -> e.getKey().startsWith(start))
        .forEach(e -> merged.merge(e.getKey(), e.getValue(), (theirs, mine) -> later(mine, theirs)));
    return List.copyOf(merged.values());
  }

  private static JournalRecord.Pending later(JournalRecord.Pending mine, JournalRecord.Pending theirs) {
    return mine == null || (theirs != null && theirs.isLaterThan(mine)) ? theirs : mine;
  }

  /**
   * The acknowledgement stamp of a change of the key journaled now (called under the key's
   * lock): this node's clock, but above every stamp it gave before and above the latest change
   * of the key it knows of, its own or another coordinator's, so that a change acknowledged
   * after another one was replicated here orders after it whatever the clocks say (see {@link
   * JournalRecord.Pending#ACK_ORDER}).
   */
  private long stamp(String bucket, String key) {
    long known = latest(bucket, key).map(JournalRecord.Pending::stagedAtMillis).orElse(Long.MIN_VALUE);
    synchronized (stamps) {
      if (lastStamp == Long.MIN_VALUE) {
        lastStamp = journal.pending().stream().mapToLong(JournalRecord.Pending::stagedAtMillis).max().orElse(0);
      }
      lastStamp = Math.max(clock.getAsLong(), Math.max(lastStamp, known) + 1);
      return lastStamp;
    }
  }

  /**
   * Journals (replicated, fsynced) and indexes a pending record recovered from the copies other
   * nodes keep, and returns true; unless it is superseded: {@code changedSince} (the caller found
   * a later change of its key), or a later change of its key is indexed here or was replicated
   * here by another coordinator. A superseded record is retired without being journaled (its
   * clean mark drops the copies, its fragments are released): it must never reach the origin.
   */
  boolean adopt(JournalRecord.Pending record, boolean changedSince) throws IOException {
    String bucket = record.identity().bucket();
    String key = record.identity().key();
    synchronized (lock(record.identity())) {
      JournalRecord.Pending now = latest.get(indexKey(bucket, key));
      JournalRecord.Pending theirs = others.latest(bucket, key).orElse(null);
      boolean superseded = changedSince || (now != null && now.isLaterThan(record))
          || (theirs != null && theirs.isLaterThan(record));
      if (!superseded) {
        journaled(record);
        latest.put(indexKey(bucket, key), record);
        return true;
      }
    }
    retire(record);
    return false;
  }

  /** As {@link #delete(String, String, CompletableFuture)}, the origin's state not known. */
  public JournalRecord.Deleted delete(String bucket, String key) throws IOException {
    return delete(bucket, key, CompletableFuture.completedFuture(null));
  }

  /**
   * Journals (fsynced) a DELETE of the key, ordered after the writes of the key journaled before
   * it, with what the origin may hold when it is applied ({@link OriginExpectation#ofDelete}:
   * {@code originState}, a HEAD's state from {@link OriginExpectation#stateOf}, waited for
   * briefly before the key's lock is taken, and the key's pending changes); reads see the key as
   * absent from now on.
   */
  public JournalRecord.Deleted delete(String bucket, String key, CompletableFuture<String> originState)
      throws IOException {
    ObjectIdentity id = new ObjectIdentity(bucket, key, writeIds.get());
    String state = OriginExpectation.awaited(originState);
    JournalRecord.Deleted record;
    synchronized (lock(id)) {
      record = new JournalRecord.Deleted(id, stamp(bucket, key),
          OriginExpectation.metadata(OriginExpectation.ofDelete(state, changes(bucket, key))));
      journaled(record);
      latest.put(indexKey(bucket, key), record);
    }
    return record;
  }

  /** Writes the latest acknowledged write of the key to {@code out}; false when there is none. */
  public boolean get(String bucket, String key, OutputStream out) throws IOException {
    Optional<JournalRecord.Staged> record = dirty(bucket, key);
    if (record.isEmpty()) {
      return false;
    }
    try (InputStream body = open(record.get())) {
      body.transferTo(out);
    }
    return true;
  }

  /** The write's body, reconstructed stripe by stripe from its fragments as it is read. */
  public InputStream open(JournalRecord.Staged record) throws IOException {
    List<FragmentReader> readers = new ArrayList<>();
    for (int i = 0; i < record.geometry().totalFragments(); i++) {
      readers.add(null);
    }
    for (Placement p : record.placements()) {
      readers.set(p.fragment(), reader(record.identity(), p));
    }
    FragmentHeader expected = new FragmentHeader(record.identity(), record.geometry(), 0, record.bodyLength());
    FragmentCells cells = new FragmentCells(expected, readers);
    return new DecodedBody(new StripeDecoder(record.geometry()), record.bodyLength(), cells, readers);
  }

  private FragmentReader reader(ObjectIdentity id, Placement p) {
    Optional<FragmentNode> node = node(p.nodeId());
    try {
      return node.isEmpty() ? null : node.get().store().open(id, p.fragment());
    } catch (IOException e) {
      return null; // absent or damaged: an erasure
    }
  }

  /**
   * Whether a later acknowledged write of the same key replaced this one in the index, or
   * another coordinator replicated a later change of the key here.
   */
  boolean superseded(JournalRecord.Pending record) {
    JournalRecord.Pending current = latest.get(indexKey(record.identity().bucket(), record.identity().key()));
    Optional<JournalRecord.Pending> other = others.latest(record.identity().bucket(), record.identity().key());
    return (current != null && !current.equals(record)) || (other.isPresent() && other.get().isLaterThan(record));
  }

  /**
   * Whether another coordinator holds a pending change of the record's key that orders before
   * it: the record must wait until that one is retired (propagated, or superseded by this one),
   * or the older change could reach the origin after it.
   */
  boolean waitsForOlder(JournalRecord.Pending record) {
    return others.changes(record.identity().bucket(), record.identity().key()).stream()
        .anyMatch(record::isLaterThan);
  }

  /**
   * Every pending change of the key: this node's, in journal order, then other coordinators'.
   * Both are indexed by key: the cost is the key's changes, not the journal's.
   */
  List<JournalRecord.Pending> changes(String bucket, String key) {
    List<JournalRecord.Pending> theirs = others.changes(bucket, key);
    List<JournalRecord.Pending> mine = own.of(bucket, key);
    if (theirs.isEmpty()) {
      return mine;
    }
    List<JournalRecord.Pending> all = new ArrayList<>(mine);
    all.addAll(theirs);
    return all;
  }

  /** This node's pending changes of the key, in journal order. */
  List<JournalRecord.Pending> ownChanges(String bucket, String key) {
    return own.of(bucket, key);
  }

  /** Whether another coordinator holds a pending change of the key. */
  boolean heldElsewhere(String bucket, String key) {
    return !others.changes(bucket, key).isEmpty();
  }

  /**
   * Retires a write that reached the origin (or was superseded): its clean mark is journaled
   * (fsynced), it leaves the index unless a later write took its place, then its fragments are
   * released; those on a node not in the view or not answering are tried again on later passes
   * ({@link #releaseAgain}). A crash between the mark and the release leaves fragments of no
   * dirty write: released again after the restart ({@link WriteJournal#retiredAtReplay}).
   */
  void retire(JournalRecord.Pending record) throws IOException {
    synchronized (lock(record.identity())) {
      journaled(new JournalRecord.Clean(record.identity()));
      latest.remove(indexKey(record.identity().bucket(), record.identity().key()), record);
    }
    if (record instanceof JournalRecord.Staged staged) {
      release(staged);
    }
  }

  /**
   * Records a repaired write's new placements: journaled (fsynced) first, then the index moves
   * to it unless a later write of the key took its place meanwhile.
   */
  void replace(JournalRecord.Staged old, JournalRecord.Staged repaired) throws IOException {
    synchronized (lock(old.identity())) {
      journaled(repaired);
      latest.replace(indexKey(old.identity().bucket(), old.identity().key()), old, repaired);
    }
  }

  /**
   * Every write whose fragments must stay: those being staged (their fragments may be committed
   * before their record is journaled), read first, then this journal's pending records, then the
   * copies other coordinators replicated here. A write is staging from before its first fragment
   * is created until its record was journaled or its fragments released, so none is missed.
   */
  Set<ObjectIdentity> liveWrites() {
    Set<ObjectIdentity> live = new HashSet<>(staging);
    journal.pending().forEach(r -> live.add(r.identity()));
    live.addAll(others.identities());
    return live;
  }

  List<JournalRecord.Staged> dirtyWrites() {
    return journal.dirty();
  }

  List<FragmentNode> nodes() {
    return nodes.get();
  }

  /**
   * Tries again to release the fragments a release left (their node was not live or did not
   * answer), and those of the last writes the journal had marked clean when it was opened (a
   * crash may have cut their release short); returns how many writes still have some ({@link
   * UnreleasedFragments}).
   */
  int releaseAgain() {
    Set<String> silent = new HashSet<>();
    return unreleased.retry((record, left) -> release(record, left, silent));
  }

  /** Releases every fragment of the write; what cannot be released now is held to be tried again. */
  private void release(JournalRecord.Staged record) {
    unreleased.add(record, release(record, record.placements(), new HashSet<>()));
  }

  /**
   * Releases the fragments of the write at {@code placements}; returns those whose node is not
   * live or did not answer. A node that did not answer joins {@code silent} and is not called
   * again with it (one timeout per node per try, however many writes it holds fragments of).
   */
  private List<Placement> release(JournalRecord.Staged record, List<Placement> placements, Set<String> silent) {
    List<Placement> left = new ArrayList<>();
    for (Placement p : placements) {
      Optional<FragmentNode> node = silent.contains(p.nodeId()) ? Optional.empty() : node(p.nodeId());
      try {
        if (node.isPresent()) {
          node.get().store().release(record.identity(), p.fragment());
        } else {
          left.add(p);
        }
      } catch (IOException e) {
        silent.add(p.nodeId());
        left.add(p);
      }
    }
    return left;
  }

  Optional<FragmentNode> node(String id) {
    return nodes.get().stream().filter(n -> n.id().equals(id)).findFirst();
  }

  /**
   * Appends (replicated, fsynced) a record of the key whose lock the caller holds, then applies
   * it to the per-key index of pending changes, as the journal applied it to its dirty set.
   */
  private void journaled(JournalRecord record) throws IOException {
    journal.append(record);
    own.track(record);
  }

  /**
   * The lock of the key's stripe: a key's journal appends (each replicated first, which may wait
   * for a slow peer) and index updates happen under it, in one order; other keys' do not wait.
   */
  private Object lock(ObjectIdentity identity) {
    return keyLocks[Math.floorMod(indexKey(identity.bucket(), identity.key()).hashCode(), KEY_LOCKS)];
  }

  static String indexKey(String bucket, String key) {
    return bucket + '\0' + key;
  }
}
