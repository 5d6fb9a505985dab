package io.verglas.cache.writeback;

import io.verglas.cache.writeback.journal.JournalRecord;

/** How a write-back PUT ended; every outcome is safe to acknowledge to the client. */
public sealed interface StageOutcome {
  /** At least {@code w} fragments durable and the journal fsynced: acknowledged, dirty. */
  record Acknowledged(JournalRecord.Staged record) implements StageOutcome {}

  /**
   * The object went to the origin synchronously instead: fewer than {@code w} nodes could take
   * a fragment before the body was read, or fewer than {@code w} but at least {@code k}
   * fragments became durable (the body was reconstructed from them). {@code reason} says which.
   */
  record WrittenThrough(String reason) implements StageOutcome {}
}
