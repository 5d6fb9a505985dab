package io.verglas.materializer.write;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * One background thread that runs a writer's file work (Parquet encoding, compression, upload)
 * in submission order, so that the task thread can do the key-index work of a flush meanwhile.
 *
 * <p>At most {@link #MAX_IN_FLIGHT} tasks wait or run at a time: {@link #submit} blocks beyond
 * that, which bounds the memory held by queued batches. A failed task fails {@link #await}; the
 * tasks after it still run (they only touch the same doomed files), so that {@code await}
 * returns only when nothing touches those files any more.
 */
final class BackgroundWrites implements AutoCloseable {
  static final int MAX_IN_FLIGHT = 8;

  private final ExecutorService thread;
  private final Semaphore slots = new Semaphore(MAX_IN_FLIGHT);
  private final List<Future<?>> submitted = new ArrayList<>();

  BackgroundWrites(String threadName) {
    this.thread = Executors.newSingleThreadExecutor(runnable -> {
      Thread t = new Thread(runnable, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Queues {@code task} after all earlier ones; blocks while {@link #MAX_IN_FLIGHT} are queued. */
  void submit(Runnable task) throws InterruptedException {
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
  void await() throws InterruptedException {
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

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
