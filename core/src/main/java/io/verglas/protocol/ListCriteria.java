package io.verglas.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import io.verglas.table.TableIdentifiers;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The criteria of a ListFlights call: the namespace to list (with the namespaces nested in it),
 * the table to continue after and the page size. Sent either as JSON,
 * {@code {"namespace": "a.b", "after": "a.b.t", "limit": 1000}} (every field optional; "after"
 * written as {@link TableIdentifiers} writes identifiers), or, as
 * before paging existed, as the namespace's levels joined by '.' (empty: the whole catalog).
 * A server answers at most {@link #limit()} tables; a page shorter than that is the last.
 */
public record ListCriteria(Namespace namespace, TableIdentifier after, int limit) {
  public static final int DEFAULT_LIMIT = 1_000;
  public static final int MAX_LIMIT = 10_000;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public ListCriteria {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("Cannot list tables: page size " + limit
          + " is outside 1.." + MAX_LIMIT);
    }
  }

  public static ListCriteria parse(byte[] criteria) {
    String text = criteria == null ? "" : new String(criteria, StandardCharsets.UTF_8).trim();
    if (!text.startsWith("{")) {
      return new ListCriteria(namespace(text), null, DEFAULT_LIMIT);
    }
    try {
      JsonNode node = MAPPER.readTree(text);
      String after = node.path("after").asText("");
      return new ListCriteria(namespace(node.path("namespace").asText("")),
          after.isEmpty() ? null : TableIdentifiers.identifier(after),
          node.path("limit").asInt(DEFAULT_LIMIT));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot list tables: invalid criteria JSON: "
          + e.getOriginalMessage(), e);
    }
  }

  public byte[] toBytes() {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("namespace", String.join(".", namespace.levels()));
    if (after != null) {
      node.put("after", TableIdentifiers.toString(after));
    }
    node.put("limit", limit);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static Namespace namespace(String dotted) {
    return dotted.isEmpty() ? Namespace.empty() : Namespace.of(dotted.split("\\."));
  }
}
