package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class VerglasClientTest {
  @Test
  void builderValidatesEachSettingOnce() {
    assertThatThrownBy(() -> VerglasClient.builder().uri("http://localhost:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected grpc+tcp://host:port");
    assertThatThrownBy(() -> VerglasClient.builder().token(" "))
        .hasMessage("Invalid token: blank");
    assertThatThrownBy(() -> VerglasClient.builder().token("a").token("b"))
        .isInstanceOf(IllegalStateException.class).hasMessage("token was already set");
    assertThatThrownBy(() -> VerglasClient.builder().callTimeout(Duration.ZERO))
        .hasMessage("Invalid call timeout: PT0S");
    assertThatThrownBy(() -> VerglasClient.builder().maxInFlightBatches(0))
        .hasMessage("Invalid max in-flight batches: 0");
    assertThatThrownBy(() -> VerglasClient.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessage("Cannot build client: uri is not set");
  }

  @Test
  void tablesMapToPathDescriptors() {
    TableIdentifier table = TableIdentifier.of("a", "b", "events");
    assertThat(VerglasClient.descriptor(table).getPath()).containsExactly("a", "b", "events");
    assertThat(VerglasClient.identifier(List.of("a", "b", "events"))).isEqualTo(table);
  }

  @Test
  void aClientWithoutAServerFailsOnlyWhenCalled() {
    try (VerglasClient client = VerglasClient.builder().uri("grpc+tcp://127.0.0.1:1")
        .callTimeout(Duration.ofSeconds(5)).build()) {
      assertThatThrownBy(client::health).isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(org.apache.arrow.flight.FlightStatusCode.UNAVAILABLE));
    }
  }
}
