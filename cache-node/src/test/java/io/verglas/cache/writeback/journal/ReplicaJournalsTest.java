package io.verglas.cache.writeback.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copies a node keeps of other coordinators' journals: a clean mark also drops the copies of
 * its key held before the cleaned record (their own clean marks missed), never later ones or
 * other keys', and a stale copy dropped by reconciliation drops only itself.
 */
class ReplicaJournalsTest {
  @TempDir Path dir;

  @Test
  void aCleanMarkDropsTheEarlierCopiesOfItsKeyWhoseCleanMarksWereMissed() throws IOException {
    JournalRecord.Staged first = staged("k", "w-1", 10);
    JournalRecord.Deleted delete = new JournalRecord.Deleted(new ObjectIdentity("b", "k", "w-2"), 20);
    JournalRecord.Staged other = staged("other", "w-3", 25);
    JournalRecord.Staged second = staged("k", "w-4", 30);
    JournalRecord.Staged third = staged("k", "w-5", 40);
    try (ReplicaJournals replicas = ReplicaJournals.open(dir)) {
      for (JournalRecord r : List.of(first, delete, other, second, third)) {
        replicas.append("node-a", r);
      }
      replicas.append("node-b", staged("k", "w-6", 5));
      replicas.append("node-a", new JournalRecord.Clean(new ObjectIdentity("b", "k", "w-unknown")));
      assertThat(replicas.pending("node-a")).hasSize(5);

      replicas.append("node-a", new JournalRecord.Clean(second.identity()));

      assertThat(replicas.pending("node-a")).containsExactly(other, third);
      assertThat(replicas.pending("node-b")).hasSize(1);
      assertThat(replicas.latest("b", "k")).contains(third);
    }
    try (ReplicaJournals reopened = ReplicaJournals.open(dir)) {
      assertThat(reopened.pending("node-a")).containsExactly(other, third);
      reopened.append("node-a", new JournalRecord.Clean(third.identity()));
      assertThat(reopened.pending("node-a")).containsExactly(other);
      assertThat(reopened.changes("b", "k")).as("node-b's copy").hasSize(1);
    }
  }

  @Test
  void aRepairedCopyKeepsItsPlaceInItsKeysOrder() throws IOException {
    JournalRecord.Staged first = staged("k", "w-1", 10);
    JournalRecord.Staged second = staged("k", "w-2", 20);
    JournalRecord.Staged repaired = new JournalRecord.Staged(first.identity(), 100, Map.of(), first.geometry(),
        List.of(new Placement(0, "node-a"), new Placement(1, "node-c")), 10);
    try (ReplicaJournals replicas = ReplicaJournals.open(dir)) {
      replicas.append("node-a", first);
      replicas.append("node-a", second);
      replicas.append("node-a", repaired);
      assertThat(replicas.changes("b", "k")).containsExactly(repaired, second);

      replicas.append("node-a", new JournalRecord.Clean(second.identity()));
      assertThat(replicas.pending("node-a")).as("held and staged before the cleaned one").isEmpty();
      assertThat(replicas.changes("b", "k")).isEmpty();
    }
  }

  @Test
  void aCopyThatArrivedLateWithARepairDropsNoLaterRecordOfItsKey() throws IOException {
    JournalRecord.Staged later = staged("k", "w-2", 20);
    JournalRecord.Staged repaired = staged("k", "w-1", 10); // missed at first, held since its repair
    try (ReplicaJournals replicas = ReplicaJournals.open(dir)) {
      replicas.append("node-a", later);
      replicas.append("node-a", repaired);
      replicas.append("node-a", new JournalRecord.Clean(repaired.identity()));
      assertThat(replicas.pending("node-a")).containsExactly(later);
    }
  }

  @Test
  void aStaleCopyDroppedByReconciliationDropsOnlyItself() throws IOException {
    JournalRecord.Staged first = staged("k", "w-1", 10);
    JournalRecord.Staged second = staged("k", "w-2", 20);
    try (ReplicaJournals replicas = ReplicaJournals.open(dir)) {
      replicas.append("node-a", first);
      replicas.append("node-a", second);
      replicas.dropStale("node-a", second.identity());
      assertThat(replicas.pending("node-a")).containsExactly(first);
      assertThat(replicas.identities()).containsExactly(first.identity());
    }
  }

  private static JournalRecord.Staged staged(String key, String writeId, long at) {
    return new JournalRecord.Staged(new ObjectIdentity("b", key, writeId), 100, Map.of(), new Geometry(2, 1, 64),
        List.of(new Placement(0, "node-a"), new Placement(1, "node-b")), at);
  }
}
