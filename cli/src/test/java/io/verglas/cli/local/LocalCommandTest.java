package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LocalCommandTest {
  private static LocalConfig parse(Properties file, String... args) {
    LocalCommand command = new LocalCommand();
    new CommandLine(command).parseArgs(args);
    return command.config(file);
  }

  @Test
  void theCommitterParallelismIsOneUnlessTheFlagOrTheFileSaysOtherwise() {
    assertThat(parse(new Properties()).committerParallelism()).isEqualTo(1);
    assertThat(parse(new Properties(), "--committer-parallelism", "3").committerParallelism())
        .isEqualTo(3);

    Properties file = new Properties();
    file.setProperty("local.committer-parallelism", "4");
    LocalSettings.checkKnown(file);
    assertThat(parse(file).committerParallelism()).isEqualTo(4);
    assertThat(parse(file, "--committer-parallelism=2").committerParallelism()).isEqualTo(2);
  }

  @Test
  void aCommitterParallelismBelowOneIsRefused() {
    assertThatThrownBy(() -> parse(new Properties(), "--committer-parallelism", "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid committer parallelism: 0");
  }

  @Test
  void rotationFlagsActOnTheCredentialsBeforeTheStackStartsAndExcludeEachOther(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    String dataDir = "--data-dir=" + dir.resolve("data");
    LocalCommand both = new LocalCommand();
    new CommandLine(both).parseArgs(dataDir, "--rotate-scoped-token-key", "--revoke-scoped-tokens");
    assertThatThrownBy(() -> both.rotateKeys(both.config(new Properties())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exclude each other");

    LocalCommand rotate = new LocalCommand();
    new CommandLine(rotate).parseArgs(dataDir, "--rotate-scoped-token-key");
    LocalConfig config = rotate.config(new Properties());
    rotate.rotateKeys(config);
    assertThat(LocalCredentials.loadOrCreate(config.credentialsFile()).previousScopedTokenKeys()).hasSize(1);

    LocalCommand revoke = new LocalCommand();
    new CommandLine(revoke).parseArgs(dataDir, "--revoke-scoped-tokens");
    revoke.rotateKeys(config);
    assertThat(LocalCredentials.loadOrCreate(config.credentialsFile()).previousScopedTokenKeys()).isEmpty();

    LocalCommand neither = new LocalCommand();
    new CommandLine(neither).parseArgs(dataDir);
    String key = LocalCredentials.loadOrCreate(config.credentialsFile()).scopedTokenKey();
    neither.rotateKeys(config);
    assertThat(LocalCredentials.loadOrCreate(config.credentialsFile()).scopedTokenKey()).isEqualTo(key);
  }
}
