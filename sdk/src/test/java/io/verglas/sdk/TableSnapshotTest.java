package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a snapshot summary says that an acknowledged batch is committed. */
class TableSnapshotTest {
  private static final PutAck ACK = new PutAck("s1", 7, 2, 100, 10);

  @Test
  void aBatchIsCommittedWhenItsWholeSegmentIsOrTheCommitNamesItsKey() {
    assertThat(snapshot(Map.of("verglas.wal.s1", "7")).covers(ACK, "k")).isTrue();
    assertThat(snapshot(Map.of("verglas.wal.s1", "6", "verglas.wal-rows.s1", "40")).covers(ACK, "k"))
        .as("a partly committed segment does not say which rows are the batch's").isFalse();
    assertThat(snapshot(Map.of("verglas.wal.s2", "9")).covers(ACK, "k")).as("another stream").isFalse();
    TableSnapshot named = snapshot(Map.of("verglas.wal.s1", "6",
        "verglas.idempotency-keys", "[\"j\",\"k\"]", "verglas.idempotency-key-count", "2"));
    assertThat(named.covers(ACK, "k")).isTrue();
    assertThat(named.covers(ACK, "x")).isFalse();
    assertThat(named.idempotencyKeys()).containsExactly("j", "k");
    assertThat(named.hasWalMarks()).isTrue();
    assertThat(snapshot(Map.of("operation", "replace")).hasWalMarks()).isFalse();
  }

  @Test
  void aMalformedMarkIsAClearError() {
    assertThatThrownBy(() -> snapshot(Map.of("verglas.wal.s1", "seven")).covers(ACK, "k"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read WAL mark of snapshot 5: verglas.wal.s1=seven");
  }

  private static TableSnapshot snapshot(Map<String, String> summary) {
    return new TableSnapshot(5, 3, 4L, 0, "overwrite", summary);
  }
}
