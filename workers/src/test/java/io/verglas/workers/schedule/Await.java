package io.verglas.workers.schedule;

import java.time.Duration;

/** Waits for a condition on real time (for what a test cannot drive with a clock). */
public final class Await {
  private Await() {}

  /** A condition that may query the database. */
  @FunctionalInterface
  public interface Check {
    boolean ok() throws Exception;
  }

  public static void until(Check check, Duration max) throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    while (!check.ok()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + max);
      }
      Thread.sleep(10);
    }
  }
}
