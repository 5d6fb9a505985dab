package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EndpointsFileTest {
  private static final EndpointsFile ENDPOINTS = new EndpointsFile(
      URI.create("http://127.0.0.1:9100"), "us-east-1", "VGKEY", "s3-secret", "warehouse",
      URI.create("grpc+tcp://127.0.0.1:8815"), "flight-token", "verglas",
      URI.create("http://127.0.0.1:9100/catalog"), Map.of("type", "jdbc", "uri", "jdbc:sqlite:x"),
      URI.create("http://127.0.0.1:9101"), URI.create("http://127.0.0.1:9101/events"),
      "admin-token", "catalog-token");

  @TempDir Path dir;

  @Test
  void theAdminTokenIsWrittenBesideEveryEarlierKey() throws Exception {
    Path file = dir.resolve("endpoints.json");
    ENDPOINTS.write(file);

    JsonNode json = new ObjectMapper().readTree(file.toFile());
    for (String path : List.of("/s3/endpoint", "/s3/region", "/s3/accessKey", "/s3/secretKey",
        "/s3/bucket", "/flight/uri", "/flight/token", "/catalog/name", "/catalog/restUri",
        "/catalog/properties/type", "/admin/uri", "/events/uri")) {
      assertThat(json.at(path).asText()).as(path).isNotBlank();
    }
    assertThat(json.at("/admin/token").asText()).isEqualTo("admin-token");
    assertThat(json.at("/catalog/token").asText()).isEqualTo("catalog-token");
    assertThat(EndpointsFile.read(file)).isEqualTo(ENDPOINTS);
  }

  @Test
  void aFileOfAnEarlierVersionReadsWithoutTheNewTokens() throws Exception {
    Path file = dir.resolve("endpoints.json");
    ENDPOINTS.write(file);
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode json = (ObjectNode) mapper.readTree(file.toFile());
    ((ObjectNode) json.get("admin")).remove("token");
    ((ObjectNode) json.get("catalog")).remove("token");
    Files.writeString(file, mapper.writeValueAsString(json));

    EndpointsFile read = EndpointsFile.read(file);

    assertThat(read.adminToken()).isNull();
    assertThat(read.catalogToken()).isNull();
    assertThat(read.adminUri()).isEqualTo(ENDPOINTS.adminUri());
  }

  @Test
  void theWorkersQueueIsWrittenOnlyWhenTheStackRunsWorkers() throws Exception {
    Path file = dir.resolve("endpoints.json");
    ENDPOINTS.write(file);
    assertThat(new ObjectMapper().readTree(file.toFile()).has("workers")).isFalse();
    assertThat(EndpointsFile.read(file).workers()).isNull();

    EndpointsFile withWorkers = ENDPOINTS.withWorkers(
        new EndpointsFile.WorkersDatabase("jdbc:postgresql://127.0.0.1:5432/test", "verglas_workers"));
    withWorkers.write(file);
    assertThat(new ObjectMapper().readTree(file.toFile()).at("/workers/schema").asText())
        .isEqualTo("verglas_workers");
    assertThat(EndpointsFile.read(file)).isEqualTo(withWorkers);
  }

  @Test
  void isWrittenOwnerOnly() throws Exception {
    Path file = dir.resolve("endpoints.json");
    ENDPOINTS.write(file);
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(EndpointsFile.read(file)).isEqualTo(ENDPOINTS);
  }

  @Test
  void replacesAReadableFileOfAnEarlierBuildWithAnOwnerOnlyOne() throws Exception {
    Path file = dir.resolve("endpoints.json");
    Files.writeString(file, "{}");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    ENDPOINTS.write(file);
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(EndpointsFile.read(file)).isEqualTo(ENDPOINTS);
  }

  /** A crash before the rename leaves the temporary behind; its mode must not carry over. */
  @Test
  void aLeftoverTemporaryFileDoesNotLendItsMode() throws Exception {
    Path file = dir.resolve("endpoints.json");
    Path leftover = dir.resolve("endpoints.json.tmp");
    Files.writeString(leftover, "partial");
    Files.setPosixFilePermissions(leftover, PosixFilePermissions.fromString("rw-rw-rw-"));
    ENDPOINTS.write(file);
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(leftover).doesNotExist();
  }

  private static String mode(Path file) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
  }
}
