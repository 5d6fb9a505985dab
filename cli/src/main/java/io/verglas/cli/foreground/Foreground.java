package io.verglas.cli.foreground;

import java.util.concurrent.CountDownLatch;

/**
 * A command that runs in the foreground until Ctrl-C or SIGTERM: {@link #stopOnExit} registers a
 * shutdown hook that closes what the command started, and {@link #await()} blocks the command
 * until that hook has run (so the JVM's exit waits for an orderly stop).
 */
public final class Foreground {
  private final CountDownLatch stopped = new CountDownLatch(1);

  private Foreground() {}

  /** Closes {@code running} at exit, after printing {@code stoppingMessage}. */
  public static Foreground stopOnExit(String stoppingMessage, AutoCloseable running) {
    Foreground foreground = new Foreground();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println(stoppingMessage);
      try {
        running.close();
      } catch (Exception e) {
        System.err.println("Cannot stop cleanly: " + e.getMessage());
      } finally {
        foreground.stopped.countDown();
      }
    }, "verglas-shutdown"));
    return foreground;
  }

  /** Blocks until the shutdown hook has closed what was started. */
  public void await() throws InterruptedException {
    stopped.await();
  }
}
