package io.verglas.cache.awareness;

import java.util.concurrent.atomic.LongAdder;

/** The awareness component's counters, written by the watcher, the poller and the warmer, read by stats. */
final class AwarenessCounters {
  final LongAdder eventsHandled = new LongAdder();
  final LongAdder unknownEventsSkipped = new LongAdder();
  final LongAdder malformedLinesSkipped = new LongAdder();
  final LongAdder reconnects = new LongAdder();
  final LongAdder gaps = new LongAdder();
  final LongAdder walksCompleted = new LongAdder();
  final LongAdder walksFailed = new LongAdder();
  final LongAdder walksSkippedOverBudget = new LongAdder();
  /** Over-budget tables whose metadata fit the budget again on a retry. */
  final LongAdder tablesReadmitted = new LongAdder();
  final LongAdder walksDropped = new LongAdder();
  final LongAdder walksCoalesced = new LongAdder();
  /** Bytes warming read from the origin into the caches. */
  final LongAdder bytesWarmed = new LongAdder();
  /** Metadata bytes walks went through, cached or not. */
  final LongAdder bytesWalked = new LongAdder();
  final LongAdder yields = new LongAdder();
  final LongAdder replaceCommits = new LongAdder();
  final LongAdder prefetchBlocks = new LongAdder();
  /** Bytes prefetch read from the origin. */
  final LongAdder prefetchBytes = new LongAdder();
  final LongAdder prefetchFailures = new LongAdder();
  final LongAdder prefetchChunksOverBudget = new LongAdder();
  final LongAdder filesNotIndexed = new LongAdder();
  /** Polls of the catalog that ran to the end. */
  final LongAdder polls = new LongAdder();
  /** Table loads by polls. */
  final LongAdder tablesPolled = new LongAdder();
  /** Commits found by polls (metadata locations not known from the feed or an earlier poll). */
  final LongAdder commitsPolled = new LongAdder();
  final LongAdder pollFailures = new LongAdder();
  volatile long lastSequence;
  volatile boolean feedConnected;
}
