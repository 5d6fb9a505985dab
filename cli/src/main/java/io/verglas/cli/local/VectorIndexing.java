package io.verglas.cli.local;

import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.vector.CommitIndexer;
import io.verglas.vector.IndexPublisher;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the vector index of each commit of a table that declares a vector column, off the
 * feed's thread: one build at a time on a thread of its own, at most {@link #QUEUED} commits
 * waiting (a commit dropped beyond that is covered by the table's next one, as a build always
 * indexes the current snapshot). The tables are read with the jobs' catalog (the node's
 * background key: an index build is not the clients' heat).
 */
final class VectorIndexing implements AutoCloseable {
  static final int QUEUED = 64;
  private static final Logger LOG = LoggerFactory.getLogger(VectorIndexing.class);

  private final Supplier<Catalog> catalog;
  private final CommitIndexer indexer;
  private final ThreadPoolExecutor builds = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(QUEUED), r -> {
        Thread t = new Thread(r, "verglas-vector-index");
        t.setDaemon(true);
        return t;
      });

  VectorIndexing(Supplier<Catalog> catalog, Path tempDir) {
    this.catalog = catalog;
    this.indexer = new CommitIndexer(id -> catalog.get().loadTable(id),
        IndexPublisher.builder().tempDir(tempDir).build());
  }

  /** Hands a commit to the builder thread; never blocks the caller. */
  void onEvent(FeedEvent event) {
    if (!(event instanceof CatalogEvent commit) || catalog.get() == null) {
      return;
    }
    try {
      builds.execute(() -> build(commit));
    } catch (RejectedExecutionException full) {
      LOG.warn("Not indexing commit {} of {}: {} builds are waiting (the next commit indexes it)",
          commit.snapshotId(), commit.table(), QUEUED);
    }
  }

  private void build(CatalogEvent commit) {
    try {
      CommitIndexer.Outcome outcome = indexer.onEvent(commit);
      if (outcome == CommitIndexer.Outcome.INDEXED) {
        LOG.info("Indexed the vectors of {} at snapshot {}", commit.table(), commit.snapshotId());
      }
    } catch (RuntimeException e) {
      LOG.warn("Cannot index the vectors of {} at snapshot {}: {}", commit.table(),
          commit.snapshotId(), e.toString());
    }
  }

  @Override
  public void close() {
    builds.shutdownNow();
  }
}
