package io.verglas.cli.local;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that answer admin requests off the event loop (answers may block: a job's
 * status, a table's metadata, an fsync, a stream waiting for events). Two bounded sets of
 * permits: ordinary requests, and follow streams, which hold a thread for as long as they
 * last, so followers can never starve {@code /health} or a publish. A request that finds no
 * permit is refused at once (503) instead of queuing without bound. The pool has as many
 * threads as permits, so an accepted task never waits for one.
 */
final class AdminWorkers implements AutoCloseable {
  private final Semaphore requests;
  private final Semaphore followers;
  private final ThreadPoolExecutor executor;

  AdminWorkers(int maxRequests, int maxFollowers) {
    this.requests = new Semaphore(maxRequests);
    this.followers = new Semaphore(maxFollowers);
    int threads = maxRequests + maxFollowers;
    this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), daemonThreads());
    executor.allowCoreThreadTimeOut(true);
  }

  /** Runs {@code task} on a worker if a permit of its kind is free; false if none is. */
  boolean submit(boolean follower, Runnable task) {
    Semaphore permits = follower ? followers : requests;
    if (!permits.tryAcquire()) {
      return false;
    }
    try {
      executor.execute(() -> {
        try {
          task.run();
        } finally {
          permits.release();
        }
      });
      return true;
    } catch (RejectedExecutionException e) { // shutting down
      permits.release();
      return false;
    }
  }

  /** Interrupts what runs (streams waiting for events end) and takes no more. */
  @Override
  public void close() {
    executor.shutdownNow();
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger number = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "verglas-admin-" + number.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
