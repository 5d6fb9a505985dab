package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class WalRowTest {
  @Test
  void comparePositionAgreesWithThePositionOrder() {
    Random random = new Random(11);
    for (int i = 0; i < 20_000; i++) {
      WalRow a = random(random);
      WalRow b = random(random);
      assertThat(Integer.signum(a.comparePosition(b)))
          .as("%s vs %s", a, b)
          .isEqualTo(Integer.signum(a.position().compareTo(b.position())));
    }
  }

  /** Few distinct values per field, so that ties on the leading fields are common. */
  private static WalRow random(Random random) {
    WalRow row = new WalRow();
    row.hlc = random.nextInt(3);
    row.streamId = "s" + random.nextInt(3);
    row.sequence = random.nextInt(3);
    row.batch = random.nextInt(3);
    row.row = random.nextInt(3);
    return row;
  }
}
