package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.cli.cachenode.WriteBackFlags;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LocalSettingsTest {
  @Test
  void aTypoInTheConfigFileFailsNamingTheKeyInsteadOfBeingIgnored() {
    Properties props = properties("local.s3port", "9200", "local.host", "0.0.0.0");
    assertThatThrownBy(() -> LocalSettings.checkKnown(props))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read the config file: unknown key local.s3port "
            + "(docs/configuration.md lists the local.* keys)");
  }

  @Test
  void keysOfTheStackAndOfTheAdminPortAreKnownAndOtherPrefixesAreLeftAlone() {
    Properties props = properties("local.s3-port", "0", "local.checkpoint-interval-ms", "500",
        "local.admin-max-followers", "3", "other.key", "x");
    LocalSettings.checkKnown(props);

    LocalConfig config = LocalConfig.builder().apply(props).build();
    assertThat(config.s3Port()).isZero();
    assertThat(config.checkpointInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(AdminConfig.builder().apply(props).build().maxFollowers()).isEqualTo(3);
  }

  @Test
  void aBadValueFailsNamingItsKey() {
    assertThatThrownBy(() -> LocalConfig.builder().apply(properties("local.s3-port", "x")))
        .hasMessage("Invalid local.s3-port: x (a number)");
  }

  @Test
  void writeBackIsOffByDefaultAndOnForTheGivenPrefixesOfOneNode() {
    assertThat(LocalConfig.builder().build().writeBack(0)).isNull();

    LocalConfig config = LocalConfig.builder().apply(properties("local.data-dir", "/tmp/v",
        "local.write-back-prefixes", "tables/, logs/")).build();
    WriteBackConfig node = config.writeBack(0);
    assertThat(node.covers("warehouse", "logs/a")).isTrue();
    assertThat(node.covers("warehouse", "other/a")).isFalse();
    assertThat(node.ackFragments()).isEqualTo(3);
    assertThat(node.directory()).isEqualTo(Path.of("/tmp/v/writeback"));
    assertThat(node.localFragmentStores()).as("all k+m fragments on the one node").isTrue();
  }

  @Test
  void aClusterGivesEachNodeItsDirectoryAndSpreadsTheFragments() {
    LocalConfig config = LocalConfig.builder().dataDir(Path.of("/tmp/v")).nodes(3)
        .writeBackPrefixes(List.of("shop/")).build();

    for (int i = 0; i < 3; i++) {
      WriteBackConfig node = config.writeBack(i);
      assertThat(node.localFragmentStores()).isFalse();
      assertThat(node.geometry().dataFragments()).isEqualTo(2);
      assertThat(node.geometry().parityFragments()).isEqualTo(1);
      assertThat(node.ackFragments()).isEqualTo(3);
    }
    assertThat(List.of(config.writeBack(0).directory(), config.writeBack(1).directory(), config.writeBack(2).directory()))
        .containsExactly(Path.of("/tmp/v/writeback"), Path.of("/tmp/v/writeback-2"), Path.of("/tmp/v/writeback-3"));
  }

  @Test
  void theCodeFlagsApplyToEveryNodeAndWMustFitTheNodes() {
    WriteBackFlags flags = new WriteBackFlags();
    new CommandLine(flags).parseArgs("--write-back-data-fragments", "2", "--write-back-parity-fragments", "2",
        "--write-back-ack-fragments", "3");
    LocalConfig config = LocalConfig.builder().nodes(4).writeBackPrefixes(List.of("")).writeBackCode(flags.code()).build();
    assertThat(config.writeBack(3).geometry().parityFragments()).isEqualTo(2);
    assertThat(config.writeBack(3).ackFragments()).isEqualTo(3);

    assertThatThrownBy(() -> LocalConfig.builder().nodes(2).writeBackPrefixes(List.of("")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot enable write-back with w=3 on 2 cache nodes");
    assertThatThrownBy(() -> LocalConfig.builder().writeBackPrefixes(List.of(""))
        .writeBackCode(b -> b.ackFragments(4)).build())
        .hasMessage("Cannot enable write-back: Invalid ack fragments w=4: must be between k=2 and k+m=3");
    assertThatThrownBy(() -> LocalConfig.builder().writeBackCode(flags.code()).build())
        .hasMessageStartingWith("Cannot set write-back's code without a write-back prefix");
  }

  @Test
  void theWriteBackCodeCeilingAndOrphanGraceAreKeysOfTheFileAndTheFlagsOverrideThem() {
    Properties props = properties("local.write-back-prefixes", "tables/", "local.nodes", "4",
        "local.write-back-data-fragments", "2", "local.write-back-parity-fragments", "2",
        "local.write-back-ack-fragments", "4", "local.write-back-max-bytes", "1000000",
        "local.write-back-orphan-grace-ms", "90000");
    LocalSettings.checkKnown(props);
    WriteBackConfig node = LocalConfig.builder().apply(props).build().writeBack(3);
    assertThat(node.geometry().parityFragments()).isEqualTo(2);
    assertThat(node.ackFragments()).isEqualTo(4);
    assertThat(node.fragmentCeilingBytes()).isEqualTo(1_000_000);
    assertThat(node.orphanGracePeriod()).isEqualTo(Duration.ofSeconds(90));

    WriteBackFlags flags = new WriteBackFlags();
    new CommandLine(flags).parseArgs("--write-back-ack-fragments", "3", "--write-back-orphan-grace-ms", "0");
    LocalConfig.Builder builder = LocalConfig.builder().apply(props);
    flags.settings().forEach(builder::writeBackSetting);
    WriteBackConfig overridden = builder.build().writeBack(0);
    assertThat(overridden.ackFragments()).as("the flag's").isEqualTo(3);
    assertThat(overridden.orphanGracePeriod()).as("the flag's").isZero();
    assertThat(overridden.geometry().parityFragments()).as("the key's").isEqualTo(2);

    assertThatThrownBy(() -> LocalConfig.builder().apply(properties("local.write-back-max-bytes", "many")))
        .hasMessage("Invalid local.write-back-max-bytes: many (a number)");
    assertThatThrownBy(() -> LocalConfig.builder().apply(properties("local.write-back-prefixes", "tables/",
        "local.write-back-orphan-grace-ms", "-1")).build())
        .hasMessage("Cannot enable write-back: write-back-orphan-grace-ms: Invalid orphan grace period: "
            + "PT-0.001S (must not be negative)");
    assertThatThrownBy(() -> LocalConfig.builder().apply(properties("local.write-back-parity-fragments", "2")).build())
        .hasMessage("Cannot set write-back's code without a write-back prefix (--write-back-prefix or "
            + "local.write-back-prefixes): write-back is off; write-back-parity-fragments given");
  }

  private static Properties properties(String... pairs) {
    Properties props = new Properties();
    for (int i = 0; i < pairs.length; i += 2) {
      props.setProperty(pairs[i], pairs[i + 1]);
    }
    return props;
  }
}
