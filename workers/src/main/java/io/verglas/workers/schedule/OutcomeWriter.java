package io.verglas.workers.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the outcomes of a dispatcher's runs, many per statement.
 *
 * <p>Design. Handler threads hand in their outcome and wait for it to be recorded; one writer
 * thread takes everything pending and writes all completions in one statement
 * ({@link JobQueue#completeAll}), then the failures one by one (rare, each computes its own
 * backoff; a {@link PermanentJobFailure} marks its job dead at once). Under load the completions of many runs share one round trip; alone, a completion
 * costs one. It writes through an outcomes-only queue ({@link JobQueue#forOutcomes}). Memory:
 * at most one pending outcome per handler thread, as each waits for its own.
 */
final class OutcomeWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutcomeWriter.class);
  private static final int MAX_BATCH = 512;
  private final JobQueue outcomes;
  private final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean running = true;

  /** A finished run: {@code failure} null when it succeeded. */
  private record Pending(Lease lease, Throwable failure, CompletableFuture<Boolean> counted) {}

  OutcomeWriter(JobQueue outcomes, String owner) {
    this.outcomes = outcomes;
    this.thread = new Thread(this::loop, "verglas-outcomes-" + owner);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /**
   * Records the outcome of {@code lease}; the future is true if it counted (the lease was
   * live), false if fenced, and fails if the database could not be written.
   */
  CompletableFuture<Boolean> record(Lease lease, Throwable failure) {
    CompletableFuture<Boolean> counted = new CompletableFuture<>();
    if (!running) {
      counted.completeExceptionally(new IllegalStateException("Cannot record outcome of "
          + lease.identity() + ": dispatcher closed"));
      return counted;
    }
    pending.add(new Pending(lease, failure, counted));
    return counted;
  }

  private void loop() {
    List<Pending> batch = new ArrayList<>();
    while (running || !pending.isEmpty()) {
      try {
        Pending first = pending.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        pending.drainTo(batch, MAX_BATCH - 1);
        write(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        batch.clear();
      }
    }
  }

  private void write(List<Pending> batch) {
    List<Pending> completions = new ArrayList<>();
    for (Pending p : batch) {
      if (p.failure() == null) {
        completions.add(p);
      } else {
        writeFailure(p);
      }
    }
    if (completions.isEmpty()) {
      return;
    }
    try {
      Set<Long> accepted = outcomes.completeAll(completions.stream().map(Pending::lease).toList());
      completions.forEach(p -> p.counted().complete(accepted.contains(p.lease().jobId())));
    } catch (RuntimeException e) {
      completions.forEach(p -> p.counted().completeExceptionally(e));
    }
  }

  private void writeFailure(Pending p) {
    try {
      Optional<JobState> state = p.failure() instanceof PermanentJobFailure permanent
          ? outcomes.failPermanently(p.lease(), "not retried: " + permanent.getMessage())
          : outcomes.fail(p.lease(), String.valueOf(p.failure()));
      LOG.info("Job {} attempt {} failed ({}): now {}", p.lease().identity(), p.lease().attempt(),
          p.failure(), state.map(Enum::name).orElse("fenced"));
      p.counted().complete(state.isPresent());
    } catch (RuntimeException e) {
      p.counted().completeExceptionally(e);
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Pending left;
    while ((left = pending.poll()) != null) {
      left.counted().completeExceptionally(new IllegalStateException("Cannot record outcome of "
          + left.lease().identity() + ": dispatcher closed"));
    }
  }
}
