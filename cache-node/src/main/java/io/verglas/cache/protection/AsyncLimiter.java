package io.verglas.cache.protection;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * At most {@code permits} asynchronous tasks in flight; up to {@code maxQueued} more wait in
 * FIFO order; beyond that a task is refused at once. A finishing task hands its permit to the
 * next waiter, which is started on {@code dispatcher} (not on the finishing thread, so a chain
 * of tasks that complete synchronously cannot grow the stack).
 */
final class AsyncLimiter {
  /** Thrown (in the future) when the wait queue is full. */
  static final class Rejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Rejected(String message) {
      super(message, null, false, false);
    }
  }

  private final int permits;
  private final int maxQueued;
  private final Executor dispatcher;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int inUse;

  AsyncLimiter(int permits, int maxQueued, Executor dispatcher) {
    this.permits = permits;
    this.maxQueued = maxQueued;
    this.dispatcher = dispatcher;
  }

  <T> CompletableFuture<T> submit(Supplier<CompletableFuture<T>> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable run = () -> {
      CompletableFuture<T> running;
      try {
        running = task.get();
      } catch (RuntimeException e) {
        running = CompletableFuture.failedFuture(e);
      }
      running.whenComplete((value, error) -> {
        release();
        if (error != null) {
          result.completeExceptionally(error);
        } else {
          result.complete(value);
        }
      });
    };
    synchronized (this) {
      if (inUse >= permits) {
        if (waiting.size() >= maxQueued) {
          result.completeExceptionally(new Rejected("Too many origin requests: " + inUse
              + " in flight and " + waiting.size() + " waiting"));
          return result;
        }
        waiting.add(run);
        return result;
      }
      inUse++;
    }
    run.run();
    return result;
  }

  private void release() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        inUse--;
        return;
      }
    }
    dispatcher.execute(next);
  }

  synchronized int inFlight() {
    return inUse;
  }

  synchronized int queued() {
    return waiting.size();
  }
}
