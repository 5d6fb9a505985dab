package io.verglas.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WalPositionTest {
  /** The documented order, written independently: clock, then stream, sequence, batch, row. */
  private static final Comparator<WalPosition> DOCUMENTED =
      Comparator.comparingLong(WalPosition::hlc)
          .thenComparing(WalPosition::streamId)
          .thenComparingLong(WalPosition::sequence)
          .thenComparingInt(WalPosition::batch)
          .thenComparingInt(WalPosition::row);

  @Test
  void ordersByClockThenStreamSequenceBatchAndRow() {
    Random random = new Random(5);
    for (int i = 0; i < 20_000; i++) {
      WalPosition a = random(random);
      WalPosition b = random(random);
      assertThat(Integer.signum(a.compareTo(b))).as("%s vs %s", a, b)
          .isEqualTo(Integer.signum(DOCUMENTED.compare(a, b)));
    }
  }

  @Test
  void aLaterRowOfTheSameBatchWins() {
    assertThat(new WalPosition(7, "s", 1, 0, 3)).isGreaterThan(new WalPosition(7, "s", 1, 0, 2));
    assertThat(new WalPosition(8, "a", 0, 0, 0)).isGreaterThan(new WalPosition(7, "z", 9, 9, 9));
  }

  /** Few distinct values per field, so that ties on the leading fields are common. */
  private static WalPosition random(Random random) {
    return new WalPosition(random.nextInt(3), "s" + random.nextInt(3), random.nextInt(3),
        random.nextInt(3), random.nextInt(3));
  }
}
