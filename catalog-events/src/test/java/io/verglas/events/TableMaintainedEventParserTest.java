package io.verglas.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableMaintainedEventParserTest {
  @Test
  void roundTripsAsStructuredCloudEvent() throws Exception {
    TableMaintainedEvent event = TestingEvents.expiry("demo.events", "c-1").withFeedSequence(9);
    String json = TableMaintainedEventParser.toJson(event);

    var tree = new ObjectMapper().readTree(json);
    assertThat(tree.path("specversion").asText()).isEqualTo("1.0");
    assertThat(tree.path("type").asText()).isEqualTo("io.verglas.table.maintained");
    assertThat(tree.path("id").asText()).isEqualTo("uuid-demo.events:expire-snapshots:c-1");
    assertThat(tree.path("subject").asText()).isEqualTo("demo.events");
    assertThat(tree.path("feedsequence").asLong()).isEqualTo(9);
    var data = tree.path("data");
    assertThat(data.path("operation").asText()).isEqualTo("expire-snapshots");
    assertThat(data.path("expired-snapshot-ids").toString()).isEqualTo("[1,2]");
    assertThat(data.path("deleted-files").toString()).isEqualTo("{\"data\":3,\"manifest-list\":2}");
    assertThat(data.path("commit-id").asText()).isEqualTo("c-1");
    assertThat(TableMaintainedEventParser.fromJson(json)).isEqualTo(event);
    assertThat(FeedEventParser.fromJson(json)).isEqualTo(event);
  }

  @Test
  void feedParserDispatchesOnTypeAndRejectsUnknownTypes() {
    CatalogEvent commit = TestingEvents.commit("demo.events", 4);
    assertThat(FeedEventParser.fromJson(FeedEventParser.toJson(commit))).isEqualTo(commit);
    assertThat(FeedEventParser.toJson(commit)).isEqualTo(CatalogEventParser.toJson(commit));
    assertThatThrownBy(() -> FeedEventParser.fromJson("{\"type\":\"x.y\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown type x.y");
    String maintained = TableMaintainedEventParser.toJson(TestingEvents.expiry("a.t", "c"));
    assertThatThrownBy(() -> CatalogEventParser.fromJson(maintained))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("type must be org.apache.iceberg.snapshot.committed");
  }

  @Test
  void rejectsUnknownOperationsAndNegativeCounts() {
    assertThatThrownBy(() -> event("compact", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid maintenance operation: compact");
    assertThatThrownBy(() -> event(TableMaintainedEvent.REMOVE_ORPHAN_FILES, Map.of("data", -1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid deleted file count of data: -1");
  }

  private static TableMaintainedEvent event(String operation, Map<String, Long> deleted) {
    return new TableMaintainedEvent("id", "src", Instant.EPOCH, List.of("a", "t"), "u",
        operation, null, List.of(), deleted, "c", 0);
  }
}
