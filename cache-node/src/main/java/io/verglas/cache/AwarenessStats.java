package io.verglas.cache;

import java.util.List;

/**
 * The Iceberg awareness of a node: its catalog watcher, catalog poller and metadata warming
 * (cumulative since start, except gauges). {@link #ABSENT} when the node runs without awareness.
 *
 * @param enabled whether the node follows a change feed or polls a catalog
 * @param feedConnected whether a follow stream is open now
 * @param lastSequence the feed sequence of the last line handled (or started after)
 * @param eventsHandled commit and maintenance events applied
 * @param unknownEventsSkipped events of types this version does not know, skipped
 * @param malformedLinesSkipped feed lines that could not be read, skipped
 * @param reconnects reconnections to the feed after a disconnect or failure
 * @param gaps reconnections that found events missing (older than the feed retains)
 * @param tablesKnown tables the watcher knows the latest metadata of
 * @param walksCompleted metadata walks finished
 * @param walksFailed metadata walks that failed (retried on the table's next commit)
 * @param walksPending tables waiting for a walk or being walked now
 * @param walksCoalesced walk requests merged into one already waiting for the same table
 * @param walksDropped walk requests dropped because the queue was full
 * @param walksSkippedOverBudget walk requests of tables over budget, not run
 * @param bytesWarmed bytes warming read from the origin into the caches
 * @param bytesWalked metadata bytes walks read (cached or not)
 * @param yields reads warming held back while client requests waited for the origin
 * @param immutableKeys keys known immutable from metadata that path rules do not cover
 * @param tablesOverBudget tables whose metadata exceeded the per-table budget (not warmed until
 *     a retry fits)
 * @param filesIndexed data files the mapper's index holds (live and just retired)
 * @param chunksIndexed column chunks the index holds
 * @param filesNotIndexed data files left out of the index by its chunk limit
 * @param readsClassified reads of indexed files mapped to (table, partition, column)
 * @param heatSamples classified column reads offered to the heat ledger
 * @param heatSamplesDropped of those, dropped because the sample buffer was full
 * @param replaceCommits walks that found a replace (compaction) since the previous walk
 * @param prefetchBlocks blocks prefetched for compactions' replacement files
 * @param prefetchBytes bytes prefetch read from the origin
 * @param prefetchFailures prefetch block reads that failed (read on demand instead)
 * @param prefetchChunksOverBudget hot column chunks left out by the per-commit prefetch budget
 * @param polls polls of the configured catalog that ran to the end (0 without a catalog)
 * @param tablesPolled table loads by polls
 * @param commitsPolled commits polls found that the feed had not delivered (walked)
 * @param pollFailures catalog listings and table loads by polls that failed
 * @param heatEntriesRestored heat ledger entries restored from the state directory at start
 * @param tablesReadmitted over-budget tables whose metadata fit the budget again on a retry
 */
public record AwarenessStats(
    boolean enabled,
    boolean feedConnected,
    long lastSequence,
    long eventsHandled,
    long unknownEventsSkipped,
    long malformedLinesSkipped,
    long reconnects,
    long gaps,
    long tablesKnown,
    long walksCompleted,
    long walksFailed,
    long walksPending,
    long walksCoalesced,
    long walksDropped,
    long walksSkippedOverBudget,
    long bytesWarmed,
    long bytesWalked,
    long yields,
    long immutableKeys,
    List<String> tablesOverBudget,
    long filesIndexed,
    long chunksIndexed,
    long filesNotIndexed,
    long readsClassified,
    long heatSamples,
    long heatSamplesDropped,
    long replaceCommits,
    long prefetchBlocks,
    long prefetchBytes,
    long prefetchFailures,
    long prefetchChunksOverBudget,
    long polls,
    long tablesPolled,
    long commitsPolled,
    long pollFailures,
    long heatEntriesRestored,
    long tablesReadmitted) {

  public static final AwarenessStats ABSENT = new AwarenessStats(false, false, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  public AwarenessStats {
    tablesOverBudget = List.copyOf(tablesOverBudget);
  }
}
