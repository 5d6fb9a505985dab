package io.verglas.cli.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cli.table.ColumnsParser;
import io.verglas.workers.check.CheckFixture;
import io.verglas.workers.check.FixtureTable;
import io.verglas.workers.event.CloudEventCodec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads a worker check's fixture file:
 *
 * <pre>{@code
 * {"config": {"source": "shop.raw_events"}, "secrets": {}, "timeoutSeconds": 120,
 *  "tick": "2026-12-01T10:00:00Z",            // or "event": {a structured CloudEvent}
 *  "tables": [
 *    {"name": "shop.raw_events", "columns": "id long not null, item string",
 *     "primaryKey": ["id"], "rows": [{"id": 1, "item": "tea"}]},
 *    {"name": "shop.hourly", "columns": "...", "output": "hourly"}]}
 * }</pre>
 *
 * A table with {@code output} (or {@code "write": true}) may be written, the others only read.
 * Columns are as {@code table create --columns} takes them; JSON numbers in rows take the
 * column's type.
 */
final class CheckFixtureFile {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CheckFixtureFile() {}

  static CheckFixture read(Path file) {
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read fixture " + file + ": " + e.getMessage(), e);
    }
    CheckFixture.Builder fixture = CheckFixture.builder()
        .config(strings(root.path("config"))).secrets(strings(root.path("secrets")));
    if (root.has("timeoutSeconds")) {
      fixture.timeout(Duration.ofSeconds(root.get("timeoutSeconds").asLong()));
    }
    if (root.has("tick")) {
      fixture.trigger(CheckFixture.tick(Instant.parse(root.get("tick").asText())));
    } else if (root.has("event")) {
      fixture.trigger(CloudEventCodec.fromJson(root.get("event").toString()));
    }
    for (JsonNode table : root.path("tables")) {
      fixture.table(table(table));
    }
    return fixture.build();
  }

  private static FixtureTable table(JsonNode table) {
    String name = table.path("name").asText(null);
    if (name == null || !table.has("columns")) {
      throw new IllegalArgumentException("Cannot read fixture table " + table
          + ": it needs a name and columns");
    }
    Schema schema = ColumnsParser.parse(table.get("columns").asText());
    List<String> keys = new ArrayList<>();
    table.path("primaryKey").forEach(key -> keys.add(key.asText()));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (JsonNode row : table.path("rows")) {
      rows.add(row(schema, row));
    }
    String output = table.path("output").asText(null);
    return new FixtureTable(name, schema, keys, rows, output, table.path("write").asBoolean(false));
  }

  private static Map<String, Object> row(Schema schema, JsonNode row) {
    Map<String, Object> values = new LinkedHashMap<>();
    row.fields().forEachRemaining(cell -> {
      Types.NestedField field = schema.findField(cell.getKey());
      values.put(cell.getKey(), cell.getValue().isNull() ? null
          : value(field == null ? null : field.type(), cell.getValue()));
    });
    return values;
  }

  /** A JSON value as the column's Java type; anything else as text (ISO-8601, decimals). */
  private static Object value(Type type, JsonNode value) {
    Type.TypeID id = type == null ? null : type.typeId();
    if (id == Type.TypeID.LONG) {
      return value.asLong();
    } else if (id == Type.TypeID.INTEGER) {
      return value.asInt();
    } else if (id == Type.TypeID.DOUBLE) {
      return value.asDouble();
    } else if (id == Type.TypeID.FLOAT) {
      return (float) value.asDouble();
    } else if (id == Type.TypeID.BOOLEAN) {
      return value.asBoolean();
    }
    return value.asText();
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> values = new LinkedHashMap<>();
    object.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
    return values;
  }
}
