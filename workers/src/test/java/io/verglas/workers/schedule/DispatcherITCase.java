package io.verglas.workers.schedule;

import static io.verglas.workers.schedule.TestEvents.job;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dispatcher on the real PostgreSQL and the real clock: wake-ups, restarts, retries. */
class DispatcherITCase {
  /** One wait's upper bound: anything picked up well below it was woken, not polled. */
  private static final Duration IDLE_BOUND = Duration.ofSeconds(30);

  /** What a handler saw: the job and when it started. */
  record Started(Lease lease, long nanos) {}

  @RegisterExtension
  final QueueFixture queue = new QueueFixture();

  private DispatcherSettings.Builder dispatcher(BlockingQueue<Started> seen) {
    return Dispatcher.builder(queue.database(),
        lease -> seen.add(new Started(lease, System.nanoTime()))).maxIdle(IDLE_BOUND);
  }

  @Test
  void anEnqueueWakesTheIdleDispatcherThroughNotify() throws Exception {
    BlockingQueue<Started> seen = new LinkedBlockingQueue<>();
    try (Dispatcher d = dispatcher(seen).build().start()) {
      queue.producer().enqueue(job("warm-up"));
      assertThat(seen.poll(5, TimeUnit.SECONDS)).isNotNull();
      long worst = 0;
      for (int i = 0; i < 20; i++) {
        Thread.sleep(20); // let the dispatcher go idle on its 30 s wait
        long t0 = System.nanoTime();
        queue.producer().enqueue(job("j" + i));
        Started s = seen.poll(5, TimeUnit.SECONDS);
        assertThat(s).isNotNull();
        worst = Math.max(worst, s.nanos() - t0);
      }
      System.out.printf("notify wake-up: worst enqueue->handler start %.2f ms of 20%n",
          worst / 1e6);
      assertThat(Duration.ofNanos(worst)).isLessThan(Duration.ofMillis(500));
    }
  }

  @Test
  void aLocalSubmitRunsAtOnceAndOnlyOnce() throws Exception {
    BlockingQueue<Started> seen = new LinkedBlockingQueue<>();
    try (Dispatcher d = dispatcher(seen).build().start()) {
      assertThat(d.submit(job("local"))).isTrue();
      Started s = seen.poll(5, TimeUnit.SECONDS);
      assertThat(s.lease().identity()).isEqualTo("local");
      assertThat(s.lease().generation()).isEqualTo(1);
      Await.until(() -> queue.producer().status("local").get().state() == JobState.DONE,
          Duration.ofSeconds(5));
      assertThat(d.submit(job("local"))).isFalse();
      assertThat(queue.producer().enqueue(job("local"))).isFalse();
      assertThat(seen.poll(200, TimeUnit.MILLISECONDS)).as("not run twice").isNull();
    }
  }

  @Test
  void aRestartedDispatcherDeliversPendingWorkAndFiresDueTimers() throws Exception {
    BlockingQueue<Started> seen = new LinkedBlockingQueue<>();
    try (Dispatcher first = dispatcher(seen).build().start()) {
      queue.producer().enqueue(job("before"));
      assertThat(seen.poll(5, TimeUnit.SECONDS).lease().identity()).isEqualTo("before");
    }
    // enqueued while no dispatcher runs: two now, one on a timer, one leased by a consumer
    // that then died (its lease must expire before anyone else runs it)
    queue.producer().enqueue(job("orphan"));
    JobQueue crashed = new JobQueue(queue.database(), QueueSettings.builder()
        .leaseDuration(Duration.ofMillis(600)).build());
    Lease orphan = crashed.claim("crashed", 1).get(0);
    assertThat(orphan.identity()).isEqualTo("orphan");
    crashed.close();
    Instant timer = Instant.now().plusMillis(400);
    queue.producer().enqueue(job("now-1"));
    queue.producer().enqueue(job("now-2"));
    queue.producer().enqueue(NewJob.builder("timed", "dep", TestEvents.manual("timed")).runAt(timer)
        .build());
    Instant orphanFree = orphan.leaseUntil();

    Map<String, Instant> started = new ConcurrentHashMap<>();
    CountDownLatch all = new CountDownLatch(4);
    try (Dispatcher second = Dispatcher.builder(queue.database(), lease -> {
      started.put(lease.identity(), Instant.now());
      all.countDown();
    }).maxIdle(IDLE_BOUND).build().start()) {
      assertThat(all.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(started).containsOnlyKeys("now-1", "now-2", "timed", "orphan");
    assertThat(started.get("timed")).isAfterOrEqualTo(timer);
    assertThat(started.get("orphan")).isAfterOrEqualTo(orphanFree);
    assertThat(queue.producer().status("orphan").get().generation()).isEqualTo(2);
    assertThat(queue.db().count("state = 'done'")).isEqualTo(5);
  }

  @Test
  void aDispatcherWhoseConnectionsAreKilledReconnectsAndListensAgain() throws Exception {
    BlockingQueue<Started> seen = new LinkedBlockingQueue<>();
    try (Dispatcher d = dispatcher(seen).build().start()) {
      queue.producer().enqueue(job("before"));
      assertThat(seen.poll(5, TimeUnit.SECONDS)).isNotNull();
      Thread.sleep(100); // the dispatcher waits for notifications again
      assertThat(terminateSchedulerBackends()).isPositive();
      try (JobQueue fresh = new JobQueue(queue.database(), QueueSettings.defaults())) {
        fresh.enqueue(job("after"));
        Started s = seen.poll(10, TimeUnit.SECONDS);
        assertThat(s).as("delivered after reconnecting").isNotNull();
        assertThat(s.lease().identity()).isEqualTo("after");
      }
    }
  }

  /** Kills every server process of this schema's scheduler connections; returns how many. */
  private int terminateSchedulerBackends() throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(TestDatabase.URL,
        "postgres", null);
        java.sql.PreparedStatement ps = c.prepareStatement("select count(pg_terminate_backend(pid))"
            + " from pg_stat_activity where application_name = ?")) {
      ps.setString(1, "verglas-scheduler-" + queue.database().schema());
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Test
  void failedAttemptsAreRetriedWithBackoffThenDie() throws Exception {
    // max attempts are fixed at enqueue (the job's row); the backoff is the consumer's
    QueueSettings fastRetry = QueueSettings.builder()
        .backoff(new Backoff(Duration.ofMillis(20), Duration.ofMillis(200))).build();
    Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    try (Dispatcher d = Dispatcher.builder(queue.database(), lease -> {
      int n = attempts.computeIfAbsent(lease.identity(), k -> new AtomicInteger()).incrementAndGet();
      if (lease.identity().equals("broken") || n < 3) {
        throw new IllegalStateException("attempt " + n + " fails");
      }
    }).queueSettings(fastRetry).maxIdle(IDLE_BOUND).build().start()) {
      queue.producer().enqueue(NewJob.builder("flaky", "dep", TestEvents.manual("flaky"))
          .maxAttempts(3).build());
      queue.producer().enqueue(NewJob.builder("broken", "dep", TestEvents.manual("broken"))
          .maxAttempts(3).build());
      Await.until(() -> queue.db().count("state in ('done', 'dead')") == 2, Duration.ofSeconds(10));
    }
    assertThat(attempts.get("flaky").get()).isEqualTo(3);
    assertThat(attempts.get("broken").get()).isEqualTo(3);
    assertThat(queue.producer().status("flaky").get().state()).isEqualTo(JobState.DONE);
    JobStatus broken = queue.producer().status("broken").get();
    assertThat(broken.state()).isEqualTo(JobState.DEAD);
    assertThat(broken.lastError()).hasValueSatisfying(e -> assertThat(e).contains("attempt 3"));
  }

  @Test
  void aPermanentFailureIsNotRetried() throws Exception {
    QueueSettings fastRetry = QueueSettings.builder()
        .backoff(new Backoff(Duration.ofMillis(20), Duration.ofMillis(200))).build();
    AtomicInteger attempts = new AtomicInteger();
    try (Dispatcher d = Dispatcher.builder(queue.database(), lease -> {
      attempts.incrementAndGet();
      throw new PermanentJobFailure("Cannot run job " + lease.identity() + ": refused for good");
    }).queueSettings(fastRetry).maxIdle(IDLE_BOUND).build().start()) {
      queue.producer().enqueue(NewJob.builder("refused", "dep", TestEvents.manual("refused"))
          .maxAttempts(5).build());
      Await.until(() -> queue.db().count("state = 'dead'") == 1, Duration.ofSeconds(10));
      Thread.sleep(300); // longer than any backoff: a retry would have started
    }
    assertThat(attempts.get()).isEqualTo(1);
    JobStatus refused = queue.producer().status("refused").get();
    assertThat(refused.attempts()).isEqualTo(1);
    assertThat(refused.lastError()).contains("not retried: Cannot run job refused: refused for good");
  }
}
