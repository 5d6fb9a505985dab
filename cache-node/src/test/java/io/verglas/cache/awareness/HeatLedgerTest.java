package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HeatLedgerTest {
  private static final long HALF_LIFE = 1_000_000_000L;
  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final HeatLedger ledger = new HeatLedger(HALF_LIFE, 4, now::get);

  private static HeatCoordinates at(String partition, String column) {
    return new HeatCoordinates("db.t", partition, column);
  }

  private double heatOf(HeatCoordinates at) {
    return ledger.table("db.t").stream().filter(h -> h.at().equals(at)).mapToDouble(HeatLedger.Heat::heat)
        .findFirst().orElse(0);
  }

  @Test
  void heatHalvesEveryHalfLife() {
    ledger.record(at("p=1", "a"));
    ledger.record(at("p=1", "a"));
    assertThat(heatOf(at("p=1", "a"))).isEqualTo(2.0);
    now.addAndGet(HALF_LIFE);
    assertThat(heatOf(at("p=1", "a"))).isCloseTo(1.0, within(1e-9));
    ledger.record(at("p=1", "a"));
    now.addAndGet(2 * HALF_LIFE);
    assertThat(heatOf(at("p=1", "a"))).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void aTableReportsOnlyItsOwnCoordinatesHottestFirst() {
    ledger.record(at("p=1", "a"));
    ledger.record(at("p=2", "b"));
    ledger.record(at("p=2", "b"));
    ledger.record(new HeatCoordinates("db.other", "", "a"));
    assertThat(ledger.table("db.t")).extracting(HeatLedger.Heat::at)
        .containsExactly(at("p=2", "b"), at("p=1", "a"));
  }

  @Test
  void keepsToItsBoundByForgettingTheColdest() {
    for (int i = 0; i < 3; i++) {
      ledger.record(at("p=hot", "a"));
    }
    for (int p = 0; p < 10; p++) {
      ledger.record(at("p=" + p, "a"));
      now.addAndGet(1);
    }
    assertThat(ledger.size()).isLessThanOrEqualTo(4);
    assertThat(ledger.forgotten()).isPositive();
    assertThat(heatOf(at("p=hot", "a"))).isGreaterThan(2.9);
  }

  @Test
  void hottestListsEveryTableHottestFirstUpToTheLimit() {
    ledger.record(at("p=1", "a"));
    ledger.record(new HeatCoordinates("db.other", "", "a"));
    ledger.record(new HeatCoordinates("db.other", "", "a"));
    ledger.record(at("p=2", "b"));
    now.addAndGet(HALF_LIFE);
    ledger.record(at("p=2", "b"));
    assertThat(ledger.hottest(2)).extracting(HeatLedger.Heat::at)
        .containsExactly(at("p=2", "b"), new HeatCoordinates("db.other", "", "a"));
    assertThat(ledger.hottest(10)).hasSize(3);
  }

  @Test
  void restoredHeatAddsToTheHeatNowAndDecaysFromNow() {
    ledger.record(at("p=1", "a"));
    ledger.restore(at("p=1", "a"), 2.5);
    ledger.restore(at("p=1", "b"), 0.75);
    assertThat(heatOf(at("p=1", "a"))).isEqualTo(3.5);
    now.addAndGet(HALF_LIFE);
    assertThat(heatOf(at("p=1", "b"))).isCloseTo(0.375, within(1e-9));
    assertThatThrownBy(() -> ledger.restore(at("p=1", "c"), Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
