package io.verglas.cache.writeback;

import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A coordinator's pending changes by key, in journal order: its journal's dirty set, indexed so
 * that a write-back PUT's or a drain's look-up of one key does not walk (nor copy) every pending
 * record. The stager applies each record right after its append returned, under the key's lock,
 * as the journal applies it to its dirty set ({@link #track}): the two hold the same records, and
 * a key's entry is gone once its last change is retired. Reads take no lock: a key's list is
 * immutable and replaced whole. Memory: one entry per key with pending changes.
 */
final class PendingChanges {
  private final Map<String, List<JournalRecord.Pending>> byKey = new ConcurrentHashMap<>();

  /** Indexes the journal's pending records as replayed (in journal order). */
  PendingChanges(List<JournalRecord.Pending> journaled) {
    journaled.forEach(this::track);
  }

  /**
   * Applies a journaled record: a pending one is added (in place of the record of its identity,
   * if one is held), a clean mark removes its identity's record.
   */
  void track(JournalRecord record) {
    ObjectIdentity id = record.identity();
    byKey.compute(WriteBackStager.indexKey(id.bucket(), id.key()), (k, ofKey) -> {
      List<JournalRecord.Pending> next = ofKey == null ? new ArrayList<>() : new ArrayList<>(ofKey);
      int at = indexOf(next, id);
      if (record instanceof JournalRecord.Pending pending) {
        if (at < 0) {
          next.add(pending);
        } else {
          next.set(at, pending);
        }
      } else if (at >= 0) {
        next.remove(at);
      }
      return next.isEmpty() ? null : List.copyOf(next);
    });
  }

  private static int indexOf(List<JournalRecord.Pending> records, ObjectIdentity id) {
    for (int i = 0; i < records.size(); i++) {
      if (records.get(i).identity().equals(id)) {
        return i;
      }
    }
    return -1;
  }

  /** The key's pending changes, in journal order; empty when it has none. */
  List<JournalRecord.Pending> of(String bucket, String key) {
    return byKey.getOrDefault(WriteBackStager.indexKey(bucket, key), List.of());
  }

  /** Keys with pending changes. */
  int keys() {
    return byKey.size();
  }
}
