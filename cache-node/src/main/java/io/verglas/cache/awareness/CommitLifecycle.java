package io.verglas.cache.awareness;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;

/**
 * What follows a table's metadata walk: the mapper's index takes the table's new files, the
 * commits since the previous walk are classified, and after a replace (a compaction) the
 * table's heat is projected onto the replacement files and those are prefetched.
 *
 * <p>Design: runs on the warmer thread right after the walk, so a finished walk of a compaction
 * means its hot chunks are cached, before the next query asks (the walk has read the new
 * files' footers already). The replacement files are found by diffing the walked manifests'
 * data files against the previous generation's (files live now that were not live then); with
 * walks coalesced this covers every commit since the previous walk. Heat is drained from the
 * sample buffer first, so reads up to the commit count. The first walk of a table (no previous
 * generation) has nothing to diff against and never prefetches. The old files stay in the cache
 * and in the index as retired (readers of the previous snapshot keep hitting and counting).
 */
final class CommitLifecycle {
  private final RequestClassifier classifier;
  private final Heat heat;
  private final Prefetcher prefetcher;
  private final AwarenessConfig config;
  private final int blockSize;
  private final AwarenessCounters counters;

  CommitLifecycle(RequestClassifier classifier, Heat heat, Prefetcher prefetcher,
      AwarenessConfig config, int blockSize, AwarenessCounters counters) {
    this.classifier = classifier;
    this.heat = heat;
    this.prefetcher = prefetcher;
    this.config = config;
    this.blockSize = blockSize;
    this.counters = counters;
  }

  /** Indexes the walked files, then prefetches if a replace was committed since the last walk. */
  void afterWalk(String table, TableMetadata metadata, List<FileLayout> layouts) throws InterruptedException {
    FileIndex current = classifier.index();
    FileIndex.Generation previous = current.table(table);
    Snapshot snapshot = metadata.currentSnapshot();
    FileIndex.Update update = current.withTable(table, snapshot == null ? -1 : snapshot.snapshotId(),
        layouts, config.indexMaxChunks());
    classifier.publish(update.index());
    counters.filesNotIndexed.add(update.filesNotIndexed());
    if (previous == FileIndex.Generation.NONE) {
      return;
    }
    List<CommitKind> kinds = CommitKind.since(metadata, previous.snapshotId());
    if (!kinds.contains(CommitKind.REPLACE)) {
      return;
    }
    counters.replaceCommits.increment();
    if (!config.prefetch()) {
      return;
    }
    heat.drain();
    List<FileLayout> added = new ArrayList<>();
    for (FileLayout layout : layouts) {
      if (!previous.live().containsKey(ObjectLocation.parse(layout.location()))) {
        added.add(layout);
      }
    }
    PrefetchPlanner.Plan plan = PrefetchPlanner.plan(added, heat.ledger().table(table),
        config.prefetchMinHeat(), config.prefetchBytesPerCommit(), blockSize);
    counters.prefetchChunksOverBudget.add(plan.chunksOverBudget());
    prefetcher.run(table, plan);
  }
}
