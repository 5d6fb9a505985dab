package io.verglas.cache.protection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Waits without blocking: the backoff timer, injected so tests need not sleep. */
@FunctionalInterface
public interface Delayer {
  CompletableFuture<Void> after(Duration delay);

  static Delayer scheduled(ScheduledExecutorService scheduler) {
    return delay -> {
      CompletableFuture<Void> done = new CompletableFuture<>();
      if (delay.isZero() || delay.isNegative()) {
        done.complete(null);
      } else {
        scheduler.schedule(() -> done.complete(null), delay.toNanos(), TimeUnit.NANOSECONDS);
      }
      return done;
    };
  }
}
