package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.ReplicaJournals;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stager's per-key index of pending changes ({@link WriteBackStager#changes}) against what
 * the journal holds (its dirty set, filtered by key: what the look-up walked before) and the
 * copies other coordinators replicated here, after every step of stages, deletes, propagation
 * (with and without an origin outage), superseded writes, other coordinators' changes and their
 * clean marks, repaired placements, adopted records and restarts (journal replayed).
 */
class PendingChangesTest {
  private static final String BUCKET = "bucket";
  private static final List<String> KEYS = List.of("a", "b", "c", "d/e");

  @TempDir Path dir;
  private final TestingOrigin origin = new TestingOrigin();
  private final List<FragmentNode> nodes = new ArrayList<>();
  private final AtomicInteger writeIds = new AtomicInteger();
  private final AtomicLong clock = new AtomicLong(1_000);
  private WriteBackConfig config;
  private WriteJournal journal;
  private ReplicaJournals replicas;
  private WriteBackStager stager;
  private Propagator propagator;

  @BeforeEach
  void start() throws IOException {
    config = WriteBackConfig.builder().directory(dir).cellBytes(4 << 10).build();
    for (int i = 0; i < 3; i++) {
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), 1 << 24)));
    }
    replicas = ReplicaJournals.open(dir.resolve("replicas"));
    open();
  }

  private void open() throws IOException {
    journal = WriteJournal.open(config.journalFile());
    stager = WriteBackStager.builder(config, journal).nodes(() -> nodes).origin(origin)
        .clock(clock::incrementAndGet).writeIds(() -> "w-" + writeIds.incrementAndGet()).replicated(replicas).build();
    propagator = new Propagator(stager, journal, origin);
  }

  @AfterEach
  void stop() throws IOException {
    journal.close();
    replicas.close();
  }

  @Test
  void aKeysChangesAreThoseTheJournalHoldsAfterEveryStep() throws IOException {
    Random random = new Random(42);
    int checks = 0;
    for (int step = 0; step < 400; step++) {
      String key = KEYS.get(random.nextInt(KEYS.size()));
      switch (random.nextInt(10)) {
        case 0, 1, 2 -> put(key, random.nextInt(3000));
        case 3 -> stager.delete(BUCKET, key);
        case 4 -> {
          origin.down = random.nextBoolean();
          propagator.runOnce();
          origin.down = false;
        }
        case 5 -> drain(key);
        case 6 -> theirs(key, random.nextBoolean());
        case 7 -> repair(key);
        case 8 -> adopt(key, random.nextInt(2000));
        default -> {
          journal.close();
          open();
        }
      }
      checks += assertIndexed();
    }
    assertThat(checks).as("keys seen with pending changes").isGreaterThan(100);
    for (String key : KEYS) {
      for (JournalRecord.Pending held : replicas.changes(BUCKET, key)) {
        replicas.append("node-b", new JournalRecord.Clean(held.identity()));
      }
    }
    propagator.runOnce();
    assertThat(journal.pending()).isEmpty();
    KEYS.forEach(k -> assertThat(stager.changes(BUCKET, k)).isEmpty());
  }

  @Test
  void aReplacedRecordKeepsItsPlaceAndARetiredOneLeavesTheIndex() throws IOException {
    JournalRecord.Staged first = put("k", 100);
    stager.delete(BUCKET, "k");
    stager.replace(first, new JournalRecord.Staged(first.identity(), first.bodyLength(), first.metadata(),
        first.geometry(), first.placements().subList(0, 2), first.stagedAtMillis()));
    List<JournalRecord.Pending> changes = stager.changes(BUCKET, "k");
    assertThat(changes).hasSize(2);
    assertThat(changes.get(0).identity()).isEqualTo(first.identity());
    assertThat(((JournalRecord.Staged) changes.get(0)).placements()).hasSize(2);
    assertThat(changes.get(1)).isInstanceOf(JournalRecord.Deleted.class);

    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(1, 1, 0, 0, null));
    assertThat(stager.changes(BUCKET, "k")).isEmpty();
    journal.close();
    open();
    assertThat(stager.changes(BUCKET, "k")).isEmpty();
  }

  /** Every key's indexed changes against the journal's and the replicas'; returns the keys with any. */
  private int assertIndexed() {
    List<JournalRecord.Pending> pending = journal.pending();
    int found = 0;
    for (String key : KEYS) {
      List<JournalRecord.Pending> expected = new ArrayList<>(pending.stream()
          .filter(r -> r.identity().bucket().equals(BUCKET) && r.identity().key().equals(key)).toList());
      assertThat(stager.ownChanges(BUCKET, key)).as("own changes of %s", key).isEqualTo(expected);
      expected.addAll(replicas.changes(BUCKET, key));
      assertThat(stager.changes(BUCKET, key)).as("changes of %s", key).isEqualTo(expected);
      found += expected.isEmpty() ? 0 : 1;
    }
    return found;
  }

  private JournalRecord.Staged put(String key, int length) throws IOException {
    byte[] body = new byte[length];
    assertThat(stager.put(BUCKET, key, Map.of(), length, new ByteArrayInputStream(body)))
        .isInstanceOf(StageOutcome.Acknowledged.class);
    return stager.dirty(BUCKET, key).orElseThrow();
  }

  private void drain(String key) {
    try {
      propagator.drain(BUCKET, key);
    } catch (IOException e) {
      assertThat(e).hasMessageContaining("held by another node"); // its change is another coordinator's
    }
  }

  /** Another coordinator's change of the key replicated here, or the clean mark of its latest one. */
  private void theirs(String key, boolean clean) throws IOException {
    List<JournalRecord.Pending> held = replicas.changes(BUCKET, key);
    if (clean && !held.isEmpty()) {
      replicas.append("node-b", new JournalRecord.Clean(held.get(held.size() - 1).identity()));
      return;
    }
    replicas.append("node-b", new JournalRecord.Deleted(new ObjectIdentity(BUCKET, key, "x-" + writeIds
        .incrementAndGet()), clock.incrementAndGet()));
  }

  /** The key's latest write with one placement fewer, as the scrubber records a repair. */
  private void repair(String key) throws IOException {
    JournalRecord.Staged dirty = stager.dirty(BUCKET, key).orElse(null);
    if (dirty != null && !dirty.placements().isEmpty()) {
      stager.replace(dirty, new JournalRecord.Staged(dirty.identity(), dirty.bodyLength(), dirty.metadata(),
          dirty.geometry(), dirty.placements().subList(1, dirty.placements().size()), dirty.stagedAtMillis()));
    }
  }

  /** A record recovered from copies elsewhere, stamped now or before the key's latest change. */
  private void adopt(String key, long age) throws IOException {
    stager.adopt(new JournalRecord.Deleted(new ObjectIdentity(BUCKET, key, "r-" + writeIds.incrementAndGet()),
        clock.get() - age), false);
  }
}
