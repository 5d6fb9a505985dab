package io.verglas.cli.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The admin port's {@code GET /ready}: ready means every named check passed within its time
 * (origin reachable, catalog reachable, WAL store writable), where {@code /health} only says the
 * process answers. Checks run on a small bounded pool, so a check that hangs costs one thread
 * and a failed answer, never a hung probe.
 */
public final class Readiness implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One condition of readiness; throws to say why it does not hold. */
  @FunctionalInterface
  public interface Check {
    void run() throws Exception;
  }

  /** The answer: 200 when {@code ready}, else 503; {@code json} names each check's outcome. */
  public record Answer(boolean ready, String json) {}

  private final Map<String, Check> checks;
  private final Duration timeout;
  private final ThreadPoolExecutor pool;

  public Readiness(Map<String, Check> checks, Duration timeout) {
    if (checks.isEmpty() || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("Invalid readiness: " + checks.size() + " checks, timeout " + timeout);
    }
    this.checks = new LinkedHashMap<>(checks);
    this.timeout = timeout;
    this.pool = new ThreadPoolExecutor(checks.size(), checks.size(), 30, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(4 * checks.size()), r -> {
          Thread t = new Thread(r, "verglas-readiness");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
  }

  public Answer evaluate() {
    Map<String, CompletableFuture<Void>> running = new LinkedHashMap<>();
    checks.forEach((name, check) -> running.put(name, start(check)));
    ObjectNode outcomes = JSON.createObjectNode();
    boolean ready = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Map.Entry<String, CompletableFuture<Void>> e : running.entrySet()) {
      String outcome = outcome(e.getValue(), deadline);
      ready &= outcome.equals("ok");
      outcomes.put(e.getKey(), outcome);
    }
    ObjectNode answer = JSON.createObjectNode().put("ready", ready);
    answer.set("checks", outcomes);
    try {
      return new Answer(ready, JSON.writeValueAsString(answer));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render readiness", e);
    }
  }

  private CompletableFuture<Void> start(Check check) {
    try {
      return CompletableFuture.runAsync(() -> {
        try {
          check.run();
        } catch (Exception e) {
          throw new CompletionException(e);
        }
      }, pool);
    } catch (RejectedExecutionException busy) {
      return CompletableFuture.failedFuture(new IllegalStateException("earlier checks are still running"));
    }
  }

  private static String outcome(CompletableFuture<Void> check, long deadline) {
    try {
      check.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return "ok";
    } catch (TimeoutException e) {
      return "timed out";
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
      return "failed: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
