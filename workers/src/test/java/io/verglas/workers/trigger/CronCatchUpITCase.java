package io.verglas.workers.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.verglas.workers.schedule.Await;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobHandler;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.JobStatus;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.schedule.TestDatabase;
import io.verglas.workers.schedule.TestingClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cron catch-up of 24 hourly intervals on the real PostgreSQL: the clock stands at
 * 2026-01-02T00:30Z, the trigger started 2026-01-01T00:00Z, so 24 intervals have closed and
 * the 25th is open (its job is the timer, due at 01:00).
 */
class CronCatchUpITCase {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant OPEN = Instant.parse("2026-01-02T00:00:00Z");
  private final TestingClock clock = new TestingClock(Instant.parse("2026-01-02T00:30:00Z"));
  private final QueueSettings settings = QueueSettings.builder().clock(clock).build();
  private final List<LogicalInterval> ran = new CopyOnWriteArrayList<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private TestDatabase db;
  private JobQueue queue;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create();
    queue = new JobQueue(db.database(), settings);
  }

  @AfterEach
  void tearDown() throws Exception {
    queue.close();
    db.close();
  }

  private static CronTrigger hourly(CatchUp catchUp) {
    return CronTrigger.builder("dep", "hourly", "0 * * * *").startDate(START).catchUp(catchUp)
        .build();
  }

  private final JobHandler recorder = lease -> {
    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
    try {
      ran.add(CronTickEvents.intervalOf(lease.event()));
      Thread.sleep(2);
    } finally {
      running.decrementAndGet();
    }
  };

  private void runUntil(CronReconciler reconciler, long doneJobs) throws Exception {
    try (Dispatcher d = Dispatcher.builder(db.database(), recorder).queueSettings(settings)
        .observer(reconciler).concurrency(4).build().start()) {
      reconciler.reconcileAll();
      Await.until(() -> db.count("state = 'done'") == doneJobs, Duration.ofSeconds(20));
    }
  }

  @Test
  void parallelRunsAll24IntervalsAndQueuesTheOpenOne() throws Exception {
    CronReconciler reconciler = new CronReconciler(queue, List.of(hourly(CatchUp.PARALLEL)), 1000);
    runUntil(reconciler, 24);
    assertThat(ran).hasSize(24);
    assertThat(ran).extracting(LogicalInterval::start).doesNotHaveDuplicates()
        .allMatch(s -> !s.isBefore(START) && s.isBefore(OPEN));
    assertThat(db.count("true")).isEqualTo(25);
    JobStatus open = queue.latestInterval("dep/hourly").get();
    assertThat(open.state()).isEqualTo(JobState.READY);
    assertThat(open.runAt()).isEqualTo(OPEN.plusSeconds(3600));
  }

  @Test
  void sequentialRunsThe24IntervalsOneAtATimeInOrder() throws Exception {
    CronReconciler reconciler =
        new CronReconciler(queue, List.of(hourly(CatchUp.SEQUENTIAL)), 1000);
    runUntil(reconciler, 24);
    assertThat(ran).hasSize(24);
    for (int i = 0; i < 24; i++) {
      assertThat(ran.get(i).start()).isEqualTo(START.plusSeconds(3600L * i));
      assertThat(ran.get(i).end()).isEqualTo(START.plusSeconds(3600L * (i + 1)));
    }
    assertThat(maxRunning.get()).isEqualTo(1);
    assertThat(queue.latestInterval("dep/hourly").get().intervalStart()).contains(OPEN);
  }

  @Test
  void noneRunsOnlyTheLatestClosedInterval() throws Exception {
    CronReconciler reconciler = new CronReconciler(queue, List.of(hourly(CatchUp.NONE)), 1000);
    runUntil(reconciler, 1);
    assertThat(ran).containsExactly(new LogicalInterval(OPEN.minusSeconds(3600), OPEN));
    assertThat(db.count("true")).isEqualTo(2);
  }

  @Test
  void reconcilingAgainOrFromAnotherSchedulerEnqueuesNothingTwice() throws Exception {
    CronTrigger trigger = hourly(CatchUp.PARALLEL);
    assertThat(new CronReconciler(queue, List.of(trigger), 1000).reconcileAll()).isEqualTo(25);
    assertThat(new CronReconciler(queue, List.of(trigger), 1000).reconcileAll()).isZero();
    try (JobQueue other = new JobQueue(db.database(), settings)) {
      assertThat(new CronReconciler(other, List.of(trigger), 1000).reconcileAll()).isZero();
    }
    assertThat(db.count("true")).isEqualTo(25);
  }

  @Test
  void theOpenIntervalFiresWhenItClosesAndTheNextOneIsQueued() throws Exception {
    CronReconciler reconciler = new CronReconciler(queue, List.of(hourly(CatchUp.NONE)), 1000);
    runUntil(reconciler, 1);
    clock.advance(Duration.ofMinutes(30)); // 01:00: the open interval closes
    runUntil(reconciler, 2);
    assertThat(ran).extracting(LogicalInterval::start)
        .containsExactly(OPEN.minusSeconds(3600), OPEN);
    assertThat(queue.latestInterval("dep/hourly").get().intervalStart())
        .contains(OPEN.plusSeconds(3600));
  }

  @Test
  void aTickCarriesItsLogicalTimeAsACloudEvent() {
    LogicalInterval interval = new LogicalInterval(START, START.plusSeconds(3600));
    CloudEvent event = CronTickEvents.tick(hourly(CatchUp.NONE), interval);
    assertThat(event.getType()).isEqualTo("io.verglas.cron.tick");
    assertThat(event.getId()).isEqualTo("dep/hourly/2026-01-01T00:00:00Z");
    assertThat(event.getSource().toString()).isEqualTo("/verglas/deployments/dep/triggers/hourly");
    assertThat(event.getExtension("logicaldate")).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8))
        .contains("\"intervalEnd\":\"2026-01-01T01:00:00Z\"");
    assertThat(CronTickEvents.intervalOf(event)).isEqualTo(interval);
  }
}
