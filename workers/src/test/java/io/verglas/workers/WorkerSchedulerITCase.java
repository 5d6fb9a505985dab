package io.verglas.workers;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.workers.schedule.Await;
import io.verglas.workers.schedule.JobHandler;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.schedule.TestDatabase;
import io.verglas.workers.schedule.TestEvents;
import io.verglas.workers.schedule.TestingClock;
import io.verglas.workers.trigger.CatchUp;
import io.verglas.workers.trigger.CronTickEvents;
import io.verglas.workers.trigger.CronTrigger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduling service across restarts: stopped half-way through a sequential catch-up of 24
 * hourly intervals and started again (twice, as two instances at once), every interval runs
 * exactly once, in order, and the open interval fires when the clock reaches its end.
 */
class WorkerSchedulerITCase {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private final TestingClock clock = new TestingClock(Instant.parse("2026-01-02T00:30:00Z"));
  private final QueueSettings settings = QueueSettings.builder().clock(clock).build();
  private final Map<Instant, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final List<Instant> order = new CopyOnWriteArrayList<>();
  private TestDatabase db;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private final JobHandler handler = lease -> {
    if (!lease.event().getType().equals(CronTickEvents.TYPE)) {
      return; // the nudge below
    }
    Instant start = CronTickEvents.intervalOf(lease.event()).start();
    runs.computeIfAbsent(start, k -> new AtomicInteger()).incrementAndGet();
    order.add(start);
  };

  private WorkerScheduler scheduler() {
    return WorkerScheduler.builder(db.database(), handler).queueSettings(settings)
        .cron(CronTrigger.builder("dep", "hourly", "0 * * * *").startDate(START)
            .catchUp(CatchUp.SEQUENTIAL).build())
        .build();
  }

  @Test
  void aRestartedSchedulerFinishesTheCatchUpWithoutRunningAnIntervalTwice() throws Exception {
    try (WorkerScheduler first = scheduler()) {
      assertThat(first.start()).isEqualTo(1);
      Await.until(() -> order.size() >= 10, Duration.ofSeconds(20));
    }
    try (WorkerScheduler second = scheduler(); WorkerScheduler third = scheduler()) {
      second.start();
      third.start();
      Await.until(() -> db.count("state = 'done'") == 24, Duration.ofSeconds(20));
      clock.advance(Duration.ofMinutes(30)); // the open interval [00:00, 01:00) closes
      // a clock moved by hand wakes nobody (a real one reaches the due time the dispatchers
      // wait for): any enqueue's notification makes them read the queue again
      second.dispatcher().submit(TestEvents.job("nudge"));
      Await.until(() -> runs.size() == 25, Duration.ofSeconds(20));
    }
    assertThat(runs.values()).allMatch(n -> n.get() == 1);
    assertThat(order).isSorted();
    assertThat(order.get(24)).isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));
  }
}
