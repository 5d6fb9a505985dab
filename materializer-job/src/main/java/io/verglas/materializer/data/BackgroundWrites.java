package io.verglas.materializer.data;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One background thread that runs a writer's work in submission order: its file work (Parquet
 * encoding, compression, upload), so that the flushing thread can do the key-index work
 * meanwhile, its early flushes, so that the task thread can go on buffering rows, or its key
 * index's state writes, so that the next flush can start.
 *
 * <p>At most {@link #MAX_IN_FLIGHT} tasks wait or run at a time: {@link #submit} blocks beyond
 * that, which bounds the memory held by queued batches. A failed task fails {@link #await}; the
 * tasks after it still run (they only touch the same doomed files), so that {@code await}
 * returns only when nothing touches those files any more.
 */
public final class BackgroundWrites implements AutoCloseable {
  static final int MAX_IN_FLIGHT = 8;
  static final Duration CLOSE_TIMEOUT = Duration.ofMinutes(1);

  private final ExecutorService thread;
  private final Semaphore slots = new Semaphore(MAX_IN_FLIGHT);
  private final List<Future<?>> submitted = new ArrayList<>();

  public BackgroundWrites(String threadName) {
    this.thread = Executors.newSingleThreadExecutor(runnable -> {
      Thread t = new Thread(runnable, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Queues {@code task} after all earlier ones; blocks while {@link #MAX_IN_FLIGHT} are queued. */
  public void submit(Runnable task) throws InterruptedException {
    slots.acquire();
    try {
      submitted.add(thread.submit(() -> {
        try {
          task.run();
        } finally {
          slots.release();
        }
      }));
    } catch (RuntimeException e) {
      slots.release();
      throw e;
    }
  }

  /** Waits for every submitted task; throws the first failure. */
  public void await() throws InterruptedException {
    RuntimeException failure = null;
    for (Future<?> future : submitted) {
      try {
        future.get();
      } catch (ExecutionException e) {
        if (failure == null) {
          Throwable cause = e.getCause();
          failure = cause instanceof RuntimeException runtime ? runtime
              : new IllegalStateException("Cannot write data file: " + cause, cause);
        }
      }
    }
    submitted.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Interrupts the running task, drops the queued ones and waits for the thread to end: what it
   * touches (files, the keyed state) may be released once this returns.
   */
  @Override
  public void close() {
    thread.shutdownNow();
    // Uninterruptibly: a cancelled task's thread is interrupted again and again while it closes,
    // and returning early would release what the background task still uses.
    boolean interrupted = false;
    long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
    try {
      while (!thread.isTerminated()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(
              "A background task did not stop within " + CLOSE_TIMEOUT);
        }
        try {
          thread.awaitTermination(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
