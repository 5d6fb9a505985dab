package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalCredentialsTest {
  @TempDir Path dir;

  @Test
  void aNewFileHoldsDistinctSecretsOwnerOnlyAndKeepsThem() throws Exception {
    Path file = dir.resolve("credentials.json");
    LocalCredentials created = LocalCredentials.loadOrCreate(file);

    assertThat(List.of(created.accessKey(), created.secretKey(), created.flightToken(),
        created.adminToken(), created.eventsToken(), created.catalogToken(), created.jobAccessKey(),
        created.jobSecretKey(), created.scopedTokenKey())).doesNotHaveDuplicates()
        .allSatisfy(secret -> assertThat(secret).hasSizeGreaterThanOrEqualTo(20));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(LocalCredentials.loadOrCreate(file)).isEqualTo(created);
    assertThat(created.toString()).doesNotContain(created.secretKey(), created.eventsToken(),
        created.jobSecretKey(), created.scopedTokenKey());
    assertThat(created.scopedTokenKey()).hasSize(64); // 256 bits: a full HMAC-SHA256 key
  }

  @Test
  void anEarlierFileGetsTheAdminAndEventsTokensAndKeepsItsKeysOwnerOnly() throws Exception {
    Path file = dir.resolve("credentials.json");
    Files.writeString(file, "{\"accessKey\":\"VGOLD\",\"secretKey\":\"old-secret\","
        + "\"flightToken\":\"old-flight\",\"laterKey\":\"kept\"}");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    LocalCredentials upgraded = LocalCredentials.loadOrCreate(file);

    assertThat(upgraded.accessKey()).isEqualTo("VGOLD");
    assertThat(upgraded.secretKey()).isEqualTo("old-secret");
    assertThat(upgraded.flightToken()).isEqualTo("old-flight");
    assertThat(upgraded.adminToken()).hasSize(48).isNotEqualTo(upgraded.eventsToken());
    assertThat(upgraded.eventsToken()).hasSize(48);
    assertThat(upgraded.jobAccessKey()).startsWith("VGJOB").isNotEqualTo(upgraded.accessKey());
    assertThat(upgraded.jobSecretKey()).hasSize(40);
    assertThat(upgraded.scopedTokenKey()).hasSize(64);
    JsonNode stored = new ObjectMapper().readTree(file.toFile());
    assertThat(stored.path("adminToken").asText()).isEqualTo(upgraded.adminToken());
    assertThat(stored.path("eventsToken").asText()).isEqualTo(upgraded.eventsToken());
    assertThat(stored.path("laterKey").asText()).isEqualTo("kept");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(LocalCredentials.loadOrCreate(file)).isEqualTo(upgraded);
  }
  @Test
  void rotationKeepsTheLastFourKeysAcceptedAndRevocationDropsThemAll() throws Exception {
    Path file = dir.resolve("credentials.json");
    LocalCredentials first = LocalCredentials.loadOrCreate(file);
    assertThat(first.previousScopedTokenKeys()).isEmpty();
    java.time.Clock clock = java.time.Clock.systemUTC();
    io.verglas.access.TableScope scope = new io.verglas.access.TableScope("hourly/run-1",
        java.time.Instant.now().plusSeconds(600).truncatedTo(java.time.temporal.ChronoUnit.MILLIS), java.util.Set.of(), java.util.Set.of());
    String minted = first.scopedTokens(clock).mint(scope);

    LocalCredentials rotated = LocalCredentials.rotateScopedTokenKey(file, true);
    assertThat(rotated.scopedTokenKey()).hasSize(64).isNotEqualTo(first.scopedTokenKey());
    assertThat(rotated.previousScopedTokenKeys()).containsExactly(first.scopedTokenKey());
    assertThat(rotated.scopedTokens(clock).verify(minted)).isEqualTo(scope);
    assertThat(rotated.accessKey()).isEqualTo(first.accessKey()); // nothing else changes
    assertThat(LocalCredentials.loadOrCreate(file)).isEqualTo(rotated);
    assertThat(rotated.toString()).doesNotContain(first.scopedTokenKey());

    for (int i = 0; i < 5; i++) {
      rotated = LocalCredentials.rotateScopedTokenKey(file, true);
    }
    assertThat(rotated.previousScopedTokenKeys()).hasSize(4).doesNotContain(first.scopedTokenKey());
    assertThatThrownBy(() -> LocalCredentials.loadOrCreate(file).scopedTokens(clock).verify(minted))
        .hasMessageContaining("bad signature");

    String recent = rotated.scopedTokens(clock).mint(scope);
    LocalCredentials revoked = LocalCredentials.rotateScopedTokenKey(file, false);
    assertThat(revoked.previousScopedTokenKeys()).isEmpty();
    assertThatThrownBy(() -> revoked.scopedTokens(clock).verify(recent))
        .hasMessageContaining("bad signature");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void aMalformedListOfPreviousKeysIsRefusedNamingIt() throws Exception {
    Path file = dir.resolve("credentials.json");
    LocalCredentials.loadOrCreate(file);
    String text = Files.readString(file).replaceFirst("\\{", "{\"previousScopedTokenKeys\":\"abc\",");
    Files.writeString(file, text);
    assertThatThrownBy(() -> LocalCredentials.loadOrCreate(file))
        .hasMessageContaining("previousScopedTokenKeys is not an array");
  }
}
