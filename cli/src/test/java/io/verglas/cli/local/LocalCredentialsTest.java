package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

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
}
