package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.azure.AzureOrigin;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OriginSpecTest {
  @TempDir Path dir;

  @Test
  void localIsTheDefault() {
    assertThat(OriginSpec.parse(null)).isInstanceOf(OriginSpec.Local.class);
    assertThat(OriginSpec.parse("local").bucket()).isEmpty();
    try (Origin origin = OriginSpec.parse("local").open(dir, Map.of())) {
      assertThat(origin).isInstanceOf(LocalDirectoryOrigin.class);
    }
  }

  @Test
  void anAzureContainerWithAnOptionalEndpoint() {
    OriginSpec plain = OriginSpec.parse("azure://myaccount/warehouse-1");
    assertThat(plain).isEqualTo(new OriginSpec.Azure("myaccount", "warehouse-1", null));
    assertThat(plain.bucket()).contains("warehouse-1");
    OriginSpec emulator = OriginSpec.parse(
        "azure://devstoreaccount1/lake?endpoint=http%3A%2F%2F127.0.0.1%3A10000%2Fdevstoreaccount1");
    assertThat(emulator).isEqualTo(new OriginSpec.Azure("devstoreaccount1", "lake",
        URI.create("http://127.0.0.1:10000/devstoreaccount1")));
    assertThat(OriginSpec.parse("azure://devstoreaccount1/lake?endpoint=http://127.0.0.1:10000/devstoreaccount1"))
        .isEqualTo(emulator);
    assertThat(emulator.toString()).isEqualTo("azure://devstoreaccount1/lake?endpoint=http://127.0.0.1:10000/devstoreaccount1");
  }

  @Test
  void invalidOriginsAreRefusedWithTheReason() {
    assertThatThrownBy(() -> OriginSpec.parse("s3://bucket")).hasMessageContaining("Invalid origin: s3://bucket");
    assertThatThrownBy(() -> OriginSpec.parse("azure://My_Account/c1c")).hasMessageContaining("storage account");
    assertThatThrownBy(() -> OriginSpec.parse("azure://account/")).hasMessageContaining("name one container");
    assertThatThrownBy(() -> OriginSpec.parse("azure://account/a/b")).hasMessageContaining("name one container");
    assertThatThrownBy(() -> OriginSpec.parse("azure://account/bad--name")).hasMessageContaining("name one container");
    assertThatThrownBy(() -> OriginSpec.parse("azure://account/okay?key=secret"))
        .hasMessageContaining("unknown parameter 'key'").hasMessageNotContaining("secret");
    assertThatThrownBy(() -> OriginSpec.parse("azure://account/okay?endpoint=ftp://x")).hasMessageContaining("http or https");
  }

  @Test
  void credentialsComeFromTheEnvironmentExactlyOnce() {
    OriginSpec azure = OriginSpec.parse("azure://myaccount/lake");
    assertThatThrownBy(() -> azure.open(dir, Map.of())).hasMessageContaining("set exactly one of AZURE_STORAGE_KEY");
    assertThatThrownBy(() -> azure.open(dir, Map.of(OriginSpec.AZURE_KEY, "a2V5", OriginSpec.AZURE_SAS, "sv=x")))
        .hasMessageContaining("set exactly one of");
    try (Origin byKey = azure.open(dir, Map.of(OriginSpec.AZURE_KEY, "a2V5"));
        Origin bySas = azure.open(dir, Map.of(OriginSpec.AZURE_SAS, "?sv=2024-11-04&sig=x"))) {
      assertThat(byKey).isInstanceOf(AzureOrigin.class);
      assertThat(bySas).isInstanceOf(AzureOrigin.class);
    }
  }

  @Test
  void theContainerIsTheStacksBucket() {
    Properties props = new Properties();
    props.setProperty("local.origin", "azure://myaccount/lake");
    assertThat(LocalConfig.builder().apply(props).build().bucket()).isEqualTo("lake");
    assertThat(LocalConfig.builder().build().bucket()).isEqualTo("warehouse");
  }
}
