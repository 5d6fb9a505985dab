package io.verglas.standardclient;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Reads one table the way a user's Iceberg Java client does, from exactly the catalog name and
 * properties an {@code endpoints.json} advertises, and prints its rows as JSON lines (every
 * value as its string form) on standard output.
 *
 * <p>Usage: {@code StandardClientProbe <endpoints.json> jdbc|rest <namespace level>... <table>}.
 * {@code jdbc} builds the catalog from {@code catalog.properties}; {@code rest} is a REST catalog
 * at {@code catalog.restUri} with its {@code catalog.token}, given only the S3 keys (the server's
 * config names the S3 endpoint, path style, region and FileIO). It runs on Iceberg's own jars (see this module's pom): a property that needs a class a
 * standard setup lacks fails here as it would for the user, with the exception on standard
 * error and exit status 1.
 */
public final class StandardClientProbe {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private StandardClientProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3 || !(args[1].equals("jdbc") || args[1].equals("rest"))) {
      System.err.println(
          "usage: StandardClientProbe <endpoints.json> jdbc|rest <namespace level>... <table>");
      System.exit(2);
    }
    JsonNode endpoints = MAPPER.readTree(new File(args[0]));
    JsonNode catalogNode = endpoints.path("catalog");
    Map<String, String> properties =
        args[1].equals("rest") ? restProperties(endpoints) : advertised(catalogNode);
    TableIdentifier name = TableIdentifier.of(
        Namespace.of(Arrays.copyOfRange(args, 2, args.length - 1)), args[args.length - 1]);
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(catalogNode.path("name").asText(), properties, null);
    try {
      printRows(catalog.loadTable(name),
          new PrintStream(System.out, false, StandardCharsets.UTF_8));
    } finally {
      if (catalog instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  private static Map<String, String> advertised(JsonNode catalogNode) {
    Map<String, String> properties = new LinkedHashMap<>();
    catalogNode.path("properties").fields()
        .forEachRemaining(field -> properties.put(field.getKey(), field.getValue().asText()));
    return properties;
  }

  /** What the README tells a REST client to set; everything else comes from the server. */
  private static Map<String, String> restProperties(JsonNode endpoints) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("type", "rest");
    properties.put("uri", endpoints.path("catalog").path("restUri").asText());
    properties.put("token", endpoints.path("catalog").path("token").asText());
    properties.put("s3.access-key-id", endpoints.path("s3").path("accessKey").asText());
    properties.put("s3.secret-access-key", endpoints.path("s3").path("secretKey").asText());
    return properties;
  }

  private static void printRows(Table table, PrintStream out) throws Exception {
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        ObjectNode json = MAPPER.createObjectNode();
        for (Types.NestedField field : table.schema().columns()) {
          Object value = row.getField(field.name());
          json.put(field.name(), value == null ? null : value.toString());
        }
        out.println(MAPPER.writeValueAsString(json));
      }
    }
    out.flush();
  }
}
