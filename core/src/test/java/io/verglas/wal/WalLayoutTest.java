package io.verglas.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WalLayoutTest {
  private final WalLayout layout = WalLayout.defaults();

  @Test
  void segmentKeysSortInSequenceOrder() {
    assertThat(layout.segmentKey("s1", 9)).isLessThan(layout.segmentKey("s1", 10));
    assertThat(layout.segmentKey("s1", 7)).isEqualTo("_wal/s1/00000000000000000007.vwal");
  }

  @Test
  void parsesItsOwnKeysOnly() {
    assertThat(layout.parse("_wal/s1/00000000000000000007.vwal"))
        .hasValueSatisfying(name -> {
          assertThat(name.streamId()).isEqualTo("s1");
          assertThat(name.sequence()).isEqualTo(7);
        });
    assertThat(layout.parse("other/s1/00000000000000000007.vwal")).isEmpty();
    assertThat(layout.parse("_wal/s1/7.vwal")).isEmpty();
  }

  @Test
  void rejectsBadStreamIds() {
    assertThatThrownBy(() -> layout.segmentKey("../x", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Invalid stream id");
    assertThatThrownBy(() -> layout.segmentKey("", 1)).isInstanceOf(IllegalArgumentException.class);
  }
}
