package io.verglas.cache.awareness;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for background threads (the watcher, the warmer) to reach a state. */
public final class Eventually {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Eventually() {}

  public static void await(String what, BooleanSupplier condition) {
    await(what, condition, () -> "");
  }

  public static void await(String what, BooleanSupplier condition, Supplier<String> state) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what + " " + state.get());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("Interrupted waiting for " + what);
      }
    }
  }
}
