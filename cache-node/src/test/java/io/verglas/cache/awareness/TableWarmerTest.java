package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TableWarmerTest {
  private final AwarenessCounters counters = new AwarenessCounters();
  private final List<String> walked = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch firstStarted = new CountDownLatch(1);
  private final CountDownLatch releaseFirst = new CountDownLatch(1);
  private final java.util.Set<String> shrunk = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private TableWarmer warmer;

  /** Records walks; the first walk waits until released; "over" tables exceed the budget. */
  private long walk(String table, String location) throws InterruptedException {
    walked.add(table + "@" + location);
    if (firstStarted.getCount() > 0) {
      firstStarted.countDown();
      releaseFirst.await();
    }
    if (table.startsWith("over") && !shrunk.contains(table)) {
      throw new TableBudget.OverBudgetException(table, location, 2, 1);
    }
    if (table.startsWith("broken")) {
      throw new IllegalStateException("origin down");
    }
    return 1;
  }

  private TableWarmer started(int capacity) throws InterruptedException {
    warmer = new TableWarmer(this::walk, capacity, counters);
    warmer.start();
    warmer.submit("first", "m0");
    firstStarted.await();
    return warmer;
  }

  @AfterEach
  void close() {
    if (warmer != null) {
      warmer.close();
    }
  }

  @Test
  void commitsOfAWaitingTableCoalesceIntoOneWalkOfTheNewestMetadata() throws InterruptedException {
    started(10);
    warmer.submit("db.t", "m1");
    warmer.submit("db.u", "m1");
    warmer.submit("db.t", "m2");
    assertThat(warmer.pending()).isEqualTo(3);
    releaseFirst.countDown();
    Eventually.await("the walks", () -> warmer.pending() == 0);
    assertThat(walked).containsExactly("first@m0", "db.t@m2", "db.u@m1");
    assertThat(counters.walksCoalesced.sum()).isEqualTo(1);
    assertThat(counters.walksCompleted.sum()).isEqualTo(3);
  }

  @Test
  void aFullQueueDropsRequestsForFurtherTables() throws InterruptedException {
    started(1);
    warmer.submit("db.t", "m1");
    warmer.submit("db.u", "m1");
    warmer.submit("db.t", "m2");
    releaseFirst.countDown();
    Eventually.await("the walks", () -> warmer.pending() == 0);
    assertThat(walked).containsExactly("first@m0", "db.t@m2");
    assertThat(counters.walksDropped.sum()).isEqualTo(1);
  }

  @Test
  void aTableOverBudgetIsNotWalkedAgain() throws InterruptedException {
    started(10);
    warmer.submit("over.t", "m1");
    releaseFirst.countDown();
    Eventually.await("the walks", () -> warmer.pending() == 0);
    assertThat(warmer.tablesOverBudget()).containsExactly("over.t");

    warmer.submit("over.t", "m2");
    warmer.submit("db.t", "m1");
    Eventually.await("the walks", () -> warmer.pending() == 0);
    assertThat(walked).containsExactly("first@m0", "over.t@m1", "db.t@m1");
    assertThat(counters.walksSkippedOverBudget.sum()).isEqualTo(1);
  }

  @Test
  void aTableOverBudgetIsReadmittedByTheFirstWalkAfterItsRetryThatFits() throws InterruptedException {
    AtomicLong now = new AtomicLong();
    warmer = new TableWarmer(this::walk, 10, counters, new OverBudgetTables(1_000, now::get));
    warmer.start();
    releaseFirst.countDown();
    warmer.submit("over.t", "m1");
    Eventually.await("the walk", () -> warmer.tablesOverBudget().contains("over.t"));

    warmer.submit("over.t", "m2");   // before the retry: skipped
    now.addAndGet(1_000);
    warmer.submit("over.t", "m3");   // retried, still over: the wait doubles
    Eventually.await("the retry", () -> walked.contains("over.t@m3") && warmer.pending() == 0);
    now.addAndGet(1_000);
    warmer.submit("over.t", "m4");   // skipped: 2 000 ns to wait now
    assertThat(warmer.tablesOverBudget()).containsExactly("over.t");

    now.addAndGet(1_000);
    shrunk.add("over.t");            // its metadata fits now
    warmer.submit("over.t", "m5");
    Eventually.await("the re-admission", () -> warmer.tablesOverBudget().isEmpty());
    warmer.submit("over.t", "m6");
    Eventually.await("the walks", () -> walked.contains("over.t@m6") && warmer.pending() == 0);
    assertThat(walked).containsExactly("over.t@m1", "over.t@m3", "over.t@m5", "over.t@m6");
    assertThat(counters.walksSkippedOverBudget.sum()).isEqualTo(2);
    assertThat(counters.tablesReadmitted.sum()).isEqualTo(1);
  }

  @Test
  void aFailedWalkIsCountedAndTheNextOneRuns() throws InterruptedException {
    started(10);
    warmer.submit("broken.t", "m1");
    warmer.submit("db.t", "m1");
    releaseFirst.countDown();
    Eventually.await("the walks", () -> warmer.pending() == 0);
    assertThat(counters.walksFailed.sum()).isEqualTo(1);
    assertThat(counters.walksCompleted.sum()).isEqualTo(2);
    assertThat(warmer.tablesOverBudget()).isEmpty();
  }

  @Test
  void closeInterruptsAWalkInProgress() throws InterruptedException {
    started(10);
    warmer.close();
    assertThat(counters.walksCompleted.sum()).isZero();
  }
}
