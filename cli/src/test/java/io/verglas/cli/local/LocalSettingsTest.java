package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

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
    assertThat(LocalConfig.builder().build().writeBack()).isNull();

    LocalConfig config = LocalConfig.builder().apply(properties("local.data-dir", "/tmp/v",
        "local.write-back-prefixes", "tables/, logs/")).build();
    assertThat(config.writeBack().covers("warehouse", "logs/a")).isTrue();
    assertThat(config.writeBack().covers("warehouse", "other/a")).isFalse();
    assertThat(config.writeBack().ackFragments()).isEqualTo(3);
    assertThat(config.writeBack().directory()).isEqualTo(Path.of("/tmp/v/writeback"));

    assertThatThrownBy(() -> LocalConfig.builder().nodes(2).writeBackPrefixes(List.of("")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot enable write-back with 2 cache nodes: fragments do not travel");
  }

  private static Properties properties(String... pairs) {
    Properties props = new Properties();
    for (int i = 0; i < pairs.length; i += 2) {
      props.setProperty(pairs[i], pairs[i + 1]);
    }
    return props;
  }
}
