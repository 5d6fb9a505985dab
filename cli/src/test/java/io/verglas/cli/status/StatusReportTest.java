package io.verglas.cli.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class StatusReportTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  @Test
  void listsTheFirstTablesOfNestedNamespacesAndSaysWhenThereAreMore() throws Exception {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    for (String ns : new String[] {"a", "a.b", "c"}) {
      catalog.createNamespace(Namespace.of(ns.split("\\.")));
    }
    catalog.createTable(TableIdentifier.of("a", "t1"), SCHEMA);
    catalog.createTable(TableIdentifier.of("a", "t2"), SCHEMA);
    catalog.createTable(TableIdentifier.of(Namespace.of("a", "b"), "t.3"), SCHEMA);
    catalog.createTable(TableIdentifier.of("c", "t4"), SCHEMA);

    JsonNode all = report(new StatusReport(() -> "{\"status\":\"ok\"}", () -> Map.of("rows", 1),
        () -> "{\"hits\":2}", () -> catalog, 10));
    assertThat(all.at("/tables/more").asBoolean()).isFalse();
    assertThat(all.at("/tables/list").findValuesAsText("table"))
        .containsExactlyInAnyOrder("a.t1", "a.t2", "a.b.`t.3`", "c.t4");
    assertThat(all.at("/tables/list/0/snapshotId").asLong()).as("no commit yet").isEqualTo(-1);
    assertThat(all.at("/ingest/rows").asInt()).isEqualTo(1);
    assertThat(all.at("/cache/hits").asInt()).isEqualTo(2);

    JsonNode first = report(new StatusReport(() -> "{}", () -> Map.of(), () -> "{}", () -> catalog, 2));
    assertThat(first.at("/tables/list")).hasSize(2);
    assertThat(first.at("/tables/more").asBoolean()).isTrue();
  }

  @Test
  void aPartThatFailsIsReportedInItsPlaceAndTheRestIsShown() throws Exception {
    JsonNode report = report(new StatusReport(() -> "{\"status\":\"ok\"}",
        () -> { throw new IllegalStateException("the ingest server is starting"); },
        () -> "{\"hits\":2}", () -> null, 10));
    assertThat(report.at("/ingest/error").asText()).contains("the ingest server is starting");
    assertThat(report.at("/tables/error").asText()).contains("the catalog is starting");
    assertThat(report.at("/cache/hits").asInt()).isEqualTo(2);
    assertThat(report.at("/health/status").asText()).isEqualTo("ok");
  }

  private static JsonNode report(StatusReport status) throws Exception {
    return new ObjectMapper().readTree(status.json());
  }
}
