package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OverBudgetTablesTest {
  private static final long RETRY = 1_000;
  private final AtomicLong now = new AtomicLong(-5_000);   // nanoTime may be negative
  private final OverBudgetTables tables = new OverBudgetTables(RETRY, now::get);

  @Test
  void aTableOverBudgetIsSkippedUntilItsRetryIsDue() {
    assertThat(tables.skip("db.t")).isFalse();
    tables.exceeded("db.t");
    assertThat(tables.tables()).containsExactly("db.t");
    assertThat(tables.skip("db.t")).isTrue();
    now.addAndGet(RETRY - 1);
    assertThat(tables.skip("db.t")).isTrue();
    now.addAndGet(1);
    assertThat(tables.skip("db.t")).as("retry due").isFalse();
    assertThat(tables.skip("db.other")).isFalse();
  }

  @Test
  void eachRetryThatDoesNotFitDoublesTheWaitUpToSixteenTimes() {
    long[] waits = new long[6];
    for (int i = 0; i < waits.length; i++) {
      tables.exceeded("db.t");
      long waited = 0;
      while (tables.skip("db.t")) {
        now.addAndGet(RETRY);
        waited += RETRY;
      }
      waits[i] = waited / RETRY;
    }
    assertThat(waits).containsExactly(1, 2, 4, 8, 16, 16);
  }

  @Test
  void aWalkThatFitsReadmitsTheTable() {
    tables.exceeded("db.t");
    now.addAndGet(RETRY);
    assertThat(tables.fits("db.t")).isTrue();
    assertThat(tables.tables()).isEmpty();
    assertThat(tables.fits("db.t")).as("not over budget any more").isFalse();
    tables.exceeded("db.t");
    assertThat(tables.skip("db.t")).as("over again: the wait starts from one retry").isTrue();
    now.addAndGet(RETRY);
    assertThat(tables.skip("db.t")).isFalse();
  }
}
