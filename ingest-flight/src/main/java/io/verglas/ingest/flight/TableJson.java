package io.verglas.ingest.flight;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.ingest.table.IngestTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.iceberg.SchemaParser;

/**
 * The result of the table actions: {@code namespace, name, uuid, location, formatVersion,
 * schema (Iceberg JSON), primaryKey}.
 */
final class TableJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private TableJson() {}

  static byte[] toBytes(IngestTable table) {
    ObjectNode node = MAPPER.createObjectNode();
    Arrays.stream(table.identifier().namespace().levels()).forEach(node.putArray("namespace")::add);
    node.put("name", table.identifier().name());
    node.put("uuid", table.uuid());
    node.put("location", table.location());
    node.put("formatVersion", table.formatVersion());
    try {
      node.set("schema", MAPPER.readTree(SchemaParser.toJson(table.schema())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.primaryKey().forEach(node.putArray("primaryKey")::add);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
