package io.verglas.events.publish;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A delivery that answers from a script (then delivers), keeps what it delivered in order and
 * counts attempts; {@link #hang} makes attempts block until interrupted.
 */
final class TestingDelivery implements Delivery {
  private final Deque<Result> script = new ArrayDeque<>();
  private final List<String> delivered = new ArrayList<>();
  private final List<String> attempts = new ArrayList<>();
  private volatile boolean hang;

  synchronized TestingDelivery then(Result result, int times) {
    for (int i = 0; i < times; i++) {
      script.add(result);
    }
    return this;
  }

  void hang() {
    hang = true;
  }

  @Override
  public Result deliver(OutboxEntry entry) throws InterruptedException {
    if (hang) {
      new CountDownLatch(1).await(); // until interrupted
    }
    synchronized (this) {
      attempts.add(entry.id());
      Result result = script.isEmpty() ? Result.delivered() : script.poll();
      if (result.kind() == Kind.DELIVERED) {
        delivered.add(entry.id());
      }
      return result;
    }
  }

  synchronized List<String> delivered() {
    return List.copyOf(delivered);
  }

  synchronized List<String> attempts() {
    return List.copyOf(attempts);
  }

  /** Waits until {@code count} entries were delivered. */
  List<String> awaitDelivered(int count, long timeoutMillis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (delivered().size() < count && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    return delivered();
  }

  @Override
  public String toString() {
    return "testing-feed";
  }
}
