package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TableWarmerTest {
  private final AwarenessCounters counters = new AwarenessCounters();
  private final List<String> walked = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch firstStarted = new CountDownLatch(1);
  private final CountDownLatch releaseFirst = new CountDownLatch(1);
  private TableWarmer warmer;

  /** Records walks; the first walk waits until released; "over" tables exceed the budget. */
  private long walk(String table, String location) throws InterruptedException {
    walked.add(table + "@" + location);
    if (firstStarted.getCount() > 0) {
      firstStarted.countDown();
      releaseFirst.await();
    }
    if (table.startsWith("over")) {
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
