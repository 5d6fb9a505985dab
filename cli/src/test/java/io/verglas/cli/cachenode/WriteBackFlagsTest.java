package io.verglas.cli.cachenode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.WriteBackConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code verglas cache-node}'s write-back flags: off by default, the code and ceiling applied, k ≤ w ≤ k+m. */
class WriteBackFlagsTest {
  private static final Path DIR = Path.of("/tmp/wb");

  @Test
  void withoutAPrefixWriteBackIsOff() {
    assertThat(parse().config("warehouse", DIR, true)).isNull();
  }

  @Test
  void theCodeAndTheCeilingAreApplied() {
    WriteBackConfig config = parse("--write-back-prefix", "tables/", "--write-back-prefix", "logs/",
        "--write-back-data-fragments", "4", "--write-back-parity-fragments", "2",
        "--write-back-ack-fragments", "5", "--write-back-max-bytes", "1000000", "--write-back-orphan-grace-ms", "60000")
        .config("warehouse", DIR, true);

    assertThat(config.geometry().dataFragments()).isEqualTo(4);
    assertThat(config.geometry().parityFragments()).isEqualTo(2);
    assertThat(config.ackFragments()).isEqualTo(5);
    assertThat(config.fragmentCeilingBytes()).isEqualTo(1_000_000);
    assertThat(config.orphanGracePeriod()).isEqualTo(java.time.Duration.ofMinutes(1));
    assertThat(config.directory()).isEqualTo(DIR);
    assertThat(config.localFragmentStores()).isTrue();
    assertThat(config.covers("warehouse", "logs/x")).isTrue();
    assertThat(config.covers("warehouse", "other/x")).isFalse();
  }

  @Test
  void theDefaultsAreTwoPlusOneAcknowledgedOnAllThree() {
    WriteBackConfig config = parse("--write-back-prefix", "").config("warehouse", DIR, false);

    assertThat(config.geometry().dataFragments()).isEqualTo(2);
    assertThat(config.geometry().parityFragments()).isEqualTo(1);
    assertThat(config.ackFragments()).isEqualTo(3);
    assertThat(config.covers("warehouse", "any")).isTrue();
    assertThat(config.localFragmentStores()).as("a cluster node's").isFalse();
  }

  @Test
  void theCodeAppliesToSettingsBuiltElsewhere() {
    WriteBackFlags flags = parse("--write-back-data-fragments", "3", "--write-back-ack-fragments", "3");
    WriteBackConfig config = flags.code().apply(WriteBackConfig.builder().directory(DIR)).enable("b", "").build();

    assertThat(flags.codeGiven()).isTrue();
    assertThat(config.geometry().dataFragments()).isEqualTo(3);
    assertThat(config.ackFragments()).isEqualTo(3);
    assertThat(parse().codeGiven()).isFalse();
    assertThatThrownBy(() -> parse("--write-back-parity-fragments", "0").code().apply(WriteBackConfig.builder()))
        .hasMessageStartingWith("Invalid write-back flags (--write-back-data-fragments");
  }

  @Test
  void wOutsideKToKPlusMIsRefusedNamingTheFlags() {
    assertThatThrownBy(() -> parse("--write-back-prefix", "t/", "--write-back-ack-fragments", "4").config("b", DIR, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--write-back-ack-fragments")
        .hasMessageContaining("w=4: must be between k=2 and k+m=3");
    assertThatThrownBy(() -> parse("--write-back-prefix", "t/", "--write-back-data-fragments", "3",
        "--write-back-ack-fragments", "2").config("b", DIR, true))
        .hasMessageContaining("w=2: must be between k=3 and k+m=4");
    assertThatThrownBy(() -> parse("--write-back-prefix", "t/", "--write-back-parity-fragments", "0").config("b", DIR, true))
        .hasMessageContaining("Invalid parity fragments m: 0");
    assertThatThrownBy(() -> parse("--write-back-prefix", "t/", "--write-back-max-bytes", "0").config("b", DIR, true))
        .hasMessageContaining("Invalid fragment ceiling: 0 bytes");
  }

  @Test
  void aCodeWithoutAPrefixIsRefused() {
    assertThatThrownBy(() -> parse("--write-back-ack-fragments", "2", "--write-back-max-bytes", "10").config("b", DIR, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use --write-back-ack-fragments, --write-back-max-bytes without --write-back-prefix: "
            + "write-back is off");
  }

  private static WriteBackFlags parse(String... args) {
    WriteBackFlags flags = new WriteBackFlags();
    new CommandLine(flags).parseArgs(args);
    return flags;
  }
}
