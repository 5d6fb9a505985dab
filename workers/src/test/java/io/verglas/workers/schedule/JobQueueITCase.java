package io.verglas.workers.schedule;

import static io.verglas.workers.schedule.TestEvents.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The queue's guarantees on the real PostgreSQL, with a clock moved by hand. */
class JobQueueITCase {
  private static final Duration LEASE = Duration.ofSeconds(10);
  private final TestingClock clock = new TestingClock(Instant.parse("2026-03-01T12:00:00Z"));
  private final QueueSettings settings = QueueSettings.builder().clock(clock)
      .leaseDuration(LEASE).maxAttempts(3)
      .backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1))).build();
  private TestDatabase db;
  private JobQueue a;
  private JobQueue b;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create();
    a = new JobQueue(db.database(), settings);
    b = new JobQueue(db.database(), settings);
  }

  @AfterEach
  void tearDown() throws Exception {
    a.close();
    b.close();
    db.close();
  }

  @Test
  void enqueueIsIdempotentOnTriggerIdentity() throws Exception {
    assertThat(a.enqueue(job("dep/cron/2026-03-01T11:00:00Z"))).isTrue();
    assertThat(a.enqueue(job("dep/cron/2026-03-01T11:00:00Z"))).isFalse();
    assertThat(b.enqueue(job("dep/cron/2026-03-01T11:00:00Z"))).isFalse(); // another scheduler
    assertThat(db.count("true")).isEqualTo(1);
    assertThat(a.claim("x", 10)).hasSize(1);
    assertThat(a.claim("x", 10)).isEmpty();
  }

  @Test
  void aBatchEnqueueAddsOnlyTheNewIdentitiesInOneTransaction() throws Exception {
    a.enqueue(job("j2"));
    assertThat(a.enqueueAll(List.of(job("j1"), job("j2"), job("j3")))).isEqualTo(2);
    assertThat(a.enqueueAll(List.of(job("j1"), job("j3")))).isZero();
    assertThat(db.count("true")).isEqualTo(3);
    NewJob bad = NewJob.builder("j4", "dep", TestEvents.manual("j4")).build();
    JobQueue tiny = new JobQueue(db.database(), QueueSettings.builder().maxEventBytes(256)
        .build());
    try {
      NewJob big = NewJob.builder("big", "dep", CloudEventBuilder.v1().withId("big")
          .withSource(URI.create("/test")).withType("t")
          .withData("text/plain", new byte[1024]).build()).build();
      assertThatThrownBy(() -> tiny.enqueueAll(List.of(bad, big)))
          .hasMessageStartingWith("Cannot enqueue job big");
      assertThat(a.status("j4")).as("a refused batch stores nothing").isEmpty();
    } finally {
      tiny.close();
    }
  }

  @Test
  void cancellingADeploymentDeletesOnlyItsWaitingJobs() throws Exception {
    a.enqueueAll(List.of(job("dep/a"), job("dep/b"), job("dep/c"),
        NewJob.builder("other/a", "other", TestEvents.manual("other/a")).build()));
    Lease running = a.claim("x", 1).get(0);
    clock.advance(Duration.ofSeconds(1));
    Lease done = a.claim("x", 1).get(0);
    assertThat(a.complete(done)).isTrue();

    assertThat(a.cancelReady("dep")).isEqualTo(1);
    assertThat(a.jobs("dep", 10)).extracting(JobStatus::identity, JobStatus::state)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(running.identity(), JobState.LEASED),
            org.assertj.core.groups.Tuple.tuple(done.identity(), JobState.DONE));
    assertThat(a.jobs("other", 10)).singleElement().extracting(JobStatus::state).isEqualTo(JobState.READY);
    assertThat(a.jobs("dep", 1)).hasSize(1);
    assertThat(a.complete(running)).as("a leased run finishes").isTrue();
    assertThatThrownBy(() -> a.jobs("dep", 0)).hasMessage("Cannot list jobs of dep: limit 0 is not positive");
  }

  @Test
  void migrationRunsOnce() throws Exception {
    assertThat(db.database().migrate()).isZero();
  }

  @Test
  void staleConsumerIsFencedAfterItsLeaseIsTakenOver() {
    a.enqueue(job("j1"));
    Lease first = a.claim("A", 1).get(0);
    assertThat(first.generation()).isEqualTo(1);
    assertThat(b.claim("B", 1)).as("a live lease is not claimable").isEmpty();

    clock.advance(LEASE.plusMillis(1));
    Lease second = b.claim("B", 1).get(0);
    assertThat(second.generation()).isEqualTo(2);
    assertThat(second.attempt()).isEqualTo(2);

    assertThat(a.heartbeat(first)).isFalse();
    assertThat(a.complete(first)).isFalse();
    assertThat(a.fail(first, "late")).isEmpty();
    assertThat(a.status("j1").get().state()).isEqualTo(JobState.LEASED);
    assertThat(b.heartbeat(second)).isTrue();
    assertThat(b.complete(second)).isTrue();
    assertThat(b.complete(second)).as("completing twice changes nothing").isFalse();
    JobStatus status = a.status("j1").get();
    assertThat(status.state()).isEqualTo(JobState.DONE);
    assertThat(status.generation()).isEqualTo(2);
  }

  @Test
  void aClaimThatFailsBeforeItsCommitLeavesTheJobUntouched() {
    a.enqueue(job("j1"));
    assertThatThrownBy(() -> a.claim("A", 1, leases -> {
      throw new IllegalStateException("consumer died before the commit");
    })).hasMessage("consumer died before the commit");
    JobStatus status = a.status("j1").get();
    assertThat(status.state()).isEqualTo(JobState.READY);
    assertThat(status.generation()).isZero();
    assertThat(b.claim("B", 1)).extracting(Lease::generation).containsExactly(1L);
  }

  @Test
  void aLimitedDeploymentIsLeasedOnlyWhileItHasRoom() throws Exception {
    a.limitConcurrency(java.util.Map.of("dep", 2));
    a.enqueueAll(List.of(job("j1"), job("j2"), job("j3"), job("j4")));
    List<Lease> first = a.claim("A", 10);
    assertThat(first).extracting(Lease::identity).containsExactly("j1", "j2");
    assertThat(b.claim("B", 10)).as("no room left").isEmpty();
    assertThat(b.enqueueLeased(job("j5"), "B")).as("waits, ready")
        .isEqualTo(Submission.WAITING);
    assertThat(b.nextDue()).as("the waiting jobs are out of the timer; the leases expire")
        .contains(clock.instant().plus(LEASE));
    assertThat(a.complete(first.get(0))).isTrue();
    assertThat(b.claim("B", 10)).extracting(Lease::identity).containsExactly("j3");
    clock.advance(LEASE.plusMillis(1)); // both live leases expire: their holders are presumed dead
    assertThat(b.claim("B", 10)).as("room for 2, oldest due first")
        .extracting(Lease::identity).containsExactly("j4", "j5");
    assertThat(a.unlimitConcurrency(List.of("dep"))).isEqualTo(1);
    assertThat(b.claim("B", 10)).extracting(Lease::identity).containsExactly("j2", "j3");
    assertThat(db.count("state = 'dead'")).isZero();
  }

  @Test
  void aJobLeasedAtEnqueueIsFencedLikeAClaimedOne() {
    Lease local = a.enqueueLeased(job("j1"), "A").lease().orElseThrow();
    assertThat(local.generation()).isEqualTo(1);
    assertThat(a.enqueueLeased(job("j1"), "A")).as("idempotent").isEqualTo(Submission.EXISTS);
    assertThat(b.enqueue(job("j1"))).isFalse();
    assertThat(b.claim("B", 1)).as("leased, not claimable").isEmpty();
    assertThat(a.nextDue()).contains(clock.instant().plus(LEASE));
    clock.advance(LEASE.plusMillis(1));
    Lease taken = b.claim("B", 1).get(0);
    assertThat(taken.generation()).isEqualTo(2);
    assertThat(a.complete(local)).isFalse();
    assertThat(b.complete(taken)).isTrue();
  }

  @Test
  void heartbeatKeepsTheLease() {
    a.enqueue(job("j1"));
    Lease lease = a.claim("A", 1).get(0);
    clock.advance(LEASE.minusSeconds(1));
    assertThat(a.heartbeat(lease)).isTrue();
    clock.advance(Duration.ofSeconds(2));
    assertThat(b.claim("B", 1)).isEmpty();
    assertThat(a.complete(lease)).isTrue();
  }

  @Test
  void aPermanentFailureKillsTheJobAtOnceOnlyUnderTheLiveGeneration() {
    a.enqueue(job("j1"));
    Lease stale = a.claim("A", 1).get(0);
    clock.advance(LEASE.plusMillis(1));
    Lease live = b.claim("B", 1).get(0);
    assertThat(a.failPermanently(stale, "stale refusal")).as("fenced").isEmpty();
    assertThat(a.status("j1").get().state()).isEqualTo(JobState.LEASED);

    assertThat(b.failPermanently(live, "no such worker class")).contains(JobState.DEAD);
    JobStatus dead = a.status("j1").get();
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.attempts()).as("attempts were left").isEqualTo(2);
    assertThat(dead.lastError()).contains("no such worker class");
    assertThat(a.nextDue()).isEmpty();
    clock.advance(Duration.ofHours(1));
    assertThat(a.claim("A", 1)).as("not retried").isEmpty();
  }

  @Test
  void failuresBackOffExponentiallyThenTheJobDies() {
    a.enqueue(job("j1"));
    Instant t0 = clock.instant();
    Lease l1 = a.claim("A", 1).get(0);
    assertThat(a.fail(l1, "boom 1")).contains(JobState.READY);
    assertThat(a.nextDue()).contains(t0.plusMillis(100));
    clock.advance(Duration.ofMillis(99));
    assertThat(a.claim("A", 1)).as("still backing off").isEmpty();
    clock.advance(Duration.ofMillis(1));
    Lease l2 = a.claim("A", 1).get(0);
    assertThat(l2.attempt()).isEqualTo(2);
    assertThat(a.fail(l2, "boom 2")).contains(JobState.READY);
    assertThat(a.nextDue()).contains(clock.instant().plusMillis(200));
    clock.advance(Duration.ofMillis(200));
    Lease l3 = a.claim("A", 1).get(0);
    assertThat(l3.lastAttempt()).isTrue();
    assertThat(a.fail(l3, "boom 3")).contains(JobState.DEAD);
    JobStatus dead = a.status("j1").get();
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.attempts()).isEqualTo(3);
    assertThat(dead.lastError()).contains("boom 3");
    assertThat(a.nextDue()).isEmpty();
    clock.advance(Duration.ofHours(1));
    assertThat(a.claim("A", 1)).isEmpty();
  }

  @Test
  void anExpiredLeaseOnTheLastAttemptDies() {
    a.enqueue(NewJob.builder("j1", "dep", TestEvents.manual("j1")).maxAttempts(1).build());
    Lease lease = a.claim("A", 1).get(0);
    clock.advance(LEASE.plusMillis(1));
    assertThat(b.claim("B", 1)).isEmpty();
    assertThat(a.status("j1").get().state()).isEqualTo(JobState.DEAD);
    assertThat(a.complete(lease)).isFalse();
  }

  @Test
  void aFutureJobIsTheNextDueTimeAndIsNotClaimedEarly() {
    Instant at = clock.instant().plusSeconds(5);
    a.enqueue(NewJob.builder("later", "dep", TestEvents.manual("later")).runAt(at).build());
    assertThat(a.nextDue()).contains(at);
    assertThat(a.claim("A", 1)).isEmpty();
    clock.advance(Duration.ofSeconds(5));
    assertThat(a.claim("A", 1)).extracting(Lease::identity).containsExactly("later");
    assertThat(a.nextDue()).contains(at.plus(LEASE)); // the lease expiry is the next timer
  }

  @Test
  void competingClaimsSkipLockedRowsAndNeverShareAJob() throws Exception {
    for (int i = 0; i < 60; i++) {
      a.enqueue(job("j" + i));
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<List<String>> fromA = pool.submit(() -> drain(a, "A"));
      Future<List<String>> fromB = pool.submit(() -> drain(b, "B"));
      List<String> all = new ArrayList<>(fromA.get());
      all.addAll(fromB.get());
      Set<String> distinct = new HashSet<>(all);
      assertThat(all).hasSize(60);
      assertThat(distinct).hasSize(60);
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<String> drain(JobQueue queue, String owner) {
    List<String> got = new ArrayList<>();
    List<Lease> batch;
    while (!(batch = queue.claim(owner, 3)).isEmpty()) {
      batch.forEach(l -> got.add(l.identity()));
    }
    return got;
  }

  @Test
  void anOversizedEventIsRefusedAndNothingIsStored() throws Exception {
    JobQueue small = new JobQueue(db.database(), QueueSettings.builder().maxEventBytes(512)
        .build());
    try {
      NewJob big = NewJob.builder("big", "dep", CloudEventBuilder.v1().withId("big")
          .withSource(URI.create("/test")).withType("t")
          .withData("text/plain", new byte[2048]).build()).build();
      assertThatThrownBy(() -> small.enqueue(big))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot enqueue job big: event of")
          .hasMessageContaining("exceeds the limit of 512");
      assertThat(db.count("true")).isZero();
    } finally {
      small.close();
    }
  }

  @Test
  void theStoredEventRoundTrips() {
    a.enqueue(job("j1"));
    Lease lease = a.claim("A", 1).get(0);
    assertThat(lease.event().getId()).isEqualTo("j1");
    assertThat(lease.event().getType()).isEqualTo("io.verglas.manual");
    assertThat(lease.deployment()).isEqualTo("dep");
  }
}
