package io.verglas.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CatalogEventParserTest {
  @Test
  void roundTripsAsStructuredCloudEvent() throws Exception {
    CatalogEvent event = TestingEvents.commit("demo.events", 7).withFeedSequence(3);
    String json = CatalogEventParser.toJson(event);

    var tree = new ObjectMapper().readTree(json);
    assertThat(tree.path("specversion").asText()).isEqualTo("1.0");
    assertThat(tree.path("type").asText()).isEqualTo("org.apache.iceberg.snapshot.committed");
    assertThat(tree.path("subject").asText()).isEqualTo("demo.events");
    assertThat(tree.path("data").path("snapshot-id").asLong()).isEqualTo(7);
    assertThat(CatalogEventParser.fromJson(json)).isEqualTo(event);
  }

  @Test
  void rejectsOtherTypes() {
    assertThatThrownBy(() -> CatalogEventParser.fromJson("{\"type\":\"x\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("type must be");
  }
}
