package io.verglas.cache.writeback.journal;

import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The pending records other coordinators replicated to this node, by key: what it serves reads of. */
public interface ReplicatedRecords {
  ReplicatedRecords NONE = new ReplicatedRecords() {
    @Override
    public Optional<JournalRecord.Pending> latest(String bucket, String key) {
      return Optional.empty();
    }

    @Override
    public List<JournalRecord.Pending> changes(String bucket, String key) {
      return List.of();
    }

    @Override
    public List<JournalRecord.Pending> latestUnder(String bucket, String prefix) {
      return List.of();
    }

    @Override
    public Set<ObjectIdentity> identities() {
      return Set.of();
    }
  };

  /** The key's latest pending change other coordinators acknowledged (in {@link JournalRecord.Pending#ACK_ORDER}). */
  Optional<JournalRecord.Pending> latest(String bucket, String key);

  /** Every pending change of the key other coordinators acknowledged. */
  List<JournalRecord.Pending> changes(String bucket, String key);

  /** The latest pending change of every key of {@code bucket} starting with {@code prefix}. */
  List<JournalRecord.Pending> latestUnder(String bucket, String prefix);

  /** The writes (and deletes) of every pending record held here. */
  Set<ObjectIdentity> identities();
}
