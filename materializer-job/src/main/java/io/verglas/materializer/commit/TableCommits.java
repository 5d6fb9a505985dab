package io.verglas.materializer.commit;

import io.verglas.materializer.delta.TableDelta;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Commits the merged deltas of one checkpoint, one per table, up to {@code threads} at once on
 * a pool of its own (one thread: in the caller's thread, one after another).
 *
 * <p>{@link #commitAll} returns or throws only once every commit it started has ended, so no
 * commit of a checkpoint still runs when the caller moves on to the next checkpoint, snapshots
 * its state or fails. A failure is thrown after the others end (the first failure, the rest
 * suppressed in it); the tables that did commit are found committed by their WAL marks when the
 * job restarts and retries the checkpoint. An interrupt cancels the commits not yet ended and
 * fails the call: their outcome is decided by the same marks on the restart.
 */
final class TableCommits implements AutoCloseable {
  private static final AtomicInteger POOLS = new AtomicInteger();
  private final TableCommitter committer;
  private final ExecutorService pool;

  TableCommits(TableCommitter committer, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("Invalid committer threads: " + threads + " (need >= 1)");
    }
    this.committer = committer;
    this.pool = threads == 1 ? null : Executors.newFixedThreadPool(threads, daemons());
  }

  /** Commits each delta (each of another table) of checkpoint {@code checkpointId}. */
  void commitAll(long checkpointId, List<TableDelta> deltas) {
    if (pool == null || deltas.size() == 1) {
      deltas.forEach(committer::commit);
      return;
    }
    List<Future<?>> started = new ArrayList<>();
    for (TableDelta delta : deltas) {
      started.add(pool.submit(() -> committer.commit(delta)));
    }
    RuntimeException failure = null;
    for (int i = 0; i < started.size(); i++) {
      try {
        started.get(i).get();
      } catch (ExecutionException e) {
        failure = merge(failure, asRuntime(e.getCause()));
      } catch (InterruptedException e) {
        started.forEach(commit -> commit.cancel(true));
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Cannot commit checkpoint " + checkpointId
            + ": interrupted while " + (started.size() - i) + " of its " + started.size()
            + " table commits ran; the restart decides theirs from the WAL marks", e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException merge(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  private static RuntimeException asRuntime(Throwable cause) {
    return cause instanceof RuntimeException runtime ? runtime
        : new IllegalStateException("Cannot commit: " + cause, cause);
  }

  private static ThreadFactory daemons() {
    int pool = POOLS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, "verglas-commit-" + pool + "-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Stops the pool, waiting a little for a commit still running (none is, between calls). */
  @Override
  public void close() throws InterruptedException {
    if (pool != null) {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
