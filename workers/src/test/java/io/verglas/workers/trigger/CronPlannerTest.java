package io.verglas.workers.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every catch-up policy, without a database: state in, intervals out. */
class CronPlannerTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2026-01-02T00:30:00Z");
  private static final CronSchedule HOURLY = new CronSchedule("0 * * * *", ZoneOffset.UTC, START);

  private static List<LogicalInterval> plan(CatchUp catchUp, Optional<CronPlanner.Latest> latest) {
    return CronPlanner.plan(HOURLY, catchUp, NOW, latest, 1_000);
  }

  @Test
  void parallelEnqueuesTheWholeBacklogAndTheOpenInterval() {
    List<LogicalInterval> plan = plan(CatchUp.PARALLEL, Optional.empty());
    assertThat(plan).hasSize(25);
    assertThat(plan.get(0)).isEqualTo(new LogicalInterval(START, START.plusSeconds(3600)));
    assertThat(plan.subList(0, 24)).allMatch(i -> i.closedAt(NOW));
    assertThat(plan.get(24).start()).isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(plan.get(24).closedAt(NOW)).isFalse();
  }

  @Test
  void parallelIsBoundedPerPassAndContinuesAfterTheLatest() {
    List<LogicalInterval> first = CronPlanner.plan(HOURLY, CatchUp.PARALLEL, NOW,
        Optional.empty(), 10);
    assertThat(first).hasSize(10);
    List<LogicalInterval> rest = CronPlanner.plan(HOURLY, CatchUp.PARALLEL, NOW,
        Optional.of(new CronPlanner.Latest(first.get(9).start(), false)), 1_000);
    assertThat(rest).hasSize(15);
    assertThat(rest.get(0).start()).isEqualTo(first.get(9).end());
  }

  @Test
  void nothingMoreWhileTheOpenIntervalIsQueued() {
    Instant open = Instant.parse("2026-01-02T00:00:00Z");
    assertThat(plan(CatchUp.PARALLEL, Optional.of(new CronPlanner.Latest(open, false))))
        .isEmpty();
    assertThat(plan(CatchUp.NONE, Optional.of(new CronPlanner.Latest(open, false)))).isEmpty();
  }

  @Test
  void sequentialOffersOneIntervalOnlyAfterThePreviousIsDone() {
    assertThat(plan(CatchUp.SEQUENTIAL, Optional.empty()))
        .containsExactly(new LogicalInterval(START, START.plusSeconds(3600)));
    assertThat(plan(CatchUp.SEQUENTIAL, Optional.of(new CronPlanner.Latest(START, false))))
        .isEmpty();
    assertThat(plan(CatchUp.SEQUENTIAL, Optional.of(new CronPlanner.Latest(START, true))))
        .containsExactly(new LogicalInterval(START.plusSeconds(3600), START.plusSeconds(7200)));
  }

  @Test
  void noneRunsOnlyTheLatestClosedIntervalThenLiveOnes() {
    assertThat(plan(CatchUp.NONE, Optional.empty())).containsExactly(
        new LogicalInterval(Instant.parse("2026-01-01T23:00:00Z"),
            Instant.parse("2026-01-02T00:00:00Z")),
        new LogicalInterval(Instant.parse("2026-01-02T00:00:00Z"),
            Instant.parse("2026-01-02T01:00:00Z")));
    // after a gap (scheduler down for hours): again only the latest closed one
    Instant old = Instant.parse("2026-01-01T10:00:00Z");
    assertThat(plan(CatchUp.NONE, Optional.of(new CronPlanner.Latest(old, true))))
        .extracting(LogicalInterval::start)
        .containsExactly(Instant.parse("2026-01-01T23:00:00Z"),
            Instant.parse("2026-01-02T00:00:00Z"));
  }

  @Test
  void aStartDateBetweenFireTimesStartsAtTheNextFireTime() {
    CronSchedule s = new CronSchedule("0 * * * *", ZoneOffset.UTC,
        Instant.parse("2026-01-01T00:10:00Z"));
    assertThat(s.first().start()).isEqualTo(Instant.parse("2026-01-01T01:00:00Z"));
  }

  @Test
  void aFutureStartDateQueuesItsFirstIntervalAsTheTimer() {
    CronSchedule s = new CronSchedule("*/15 * * * *", ZoneOffset.UTC, NOW.plus(Duration.ofHours(2)));
    for (CatchUp c : CatchUp.values()) {
      List<LogicalInterval> plan = CronPlanner.plan(s, c, NOW, Optional.empty(), 1_000);
      assertThat(plan).as(c.name()).hasSize(1);
      assertThat(plan.get(0).start()).isEqualTo(NOW.plus(Duration.ofHours(2)));
      assertThat(plan.get(0).end()).isEqualTo(NOW.plus(Duration.ofMinutes(135)));
    }
  }

  @Test
  void aBadExpressionIsRefusedClearly() {
    assertThatThrownBy(() -> CronTrigger.builder("dep", "t", "61 * * * *"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse cron expression '61 * * * *'");
    assertThatThrownBy(() -> CronTrigger.builder("dep", "t", "0 * * * *").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build cron trigger t: no start date");
  }
}
