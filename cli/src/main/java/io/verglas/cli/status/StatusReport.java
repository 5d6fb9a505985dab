package io.verglas.cli.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.table.TableIdentifiers;
import java.util.List;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The admin port's {@code GET /status}: one JSON document with everything the status page
 * shows, each part from its own source so one that is starting or failing does not hide the
 * rest ({@code {"error": ...}} in its place). Counters are cumulative; the page turns
 * consecutive reports into rates.
 */
public final class StatusReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<String> health;
  private final Supplier<Object> ingest;
  private final Supplier<String> cache;
  private final Supplier<Catalog> catalog;
  private final int tableLimit;

  /**
   * @param health the health JSON
   * @param ingest the ingest server's counters (rendered with Jackson)
   * @param cache the cache node's statistics JSON
   * @param catalog the catalog, null while it starts
   * @param tableLimit how many tables the report lists at most
   */
  public StatusReport(Supplier<String> health, Supplier<Object> ingest, Supplier<String> cache,
      Supplier<Catalog> catalog, int tableLimit) {
    if (tableLimit <= 0) {
      throw new IllegalArgumentException("Invalid table limit: " + tableLimit + " (must be > 0)");
    }
    this.health = health;
    this.ingest = ingest;
    this.cache = cache;
    this.catalog = catalog;
    this.tableLimit = tableLimit;
  }

  public String json() {
    ObjectNode report = JSON.createObjectNode();
    report.put("time", System.currentTimeMillis());
    part(report, "health", () -> JSON.readTree(health.get()));
    part(report, "ingest", () -> JSON.valueToTree(ingest.get()));
    part(report, "cache", () -> JSON.readTree(cache.get()));
    part(report, "tables", this::tables);
    try {
      return JSON.writeValueAsString(report);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render the status report", e);
    }
  }

  private ObjectNode tables() {
    Catalog current = catalog.get();
    if (current == null) {
      throw new IllegalStateException("the catalog is starting");
    }
    List<TableIdentifier> names = CatalogTables.first(current, tableLimit);
    ObjectNode tables = JSON.createObjectNode();
    tables.put("more", names.size() > tableLimit);
    var list = tables.putArray("list");
    for (TableIdentifier name : names.subList(0, Math.min(names.size(), tableLimit))) {
      try {
        list.add(JSON.valueToTree(TableSummary.of(TableIdentifiers.toString(name), current.loadTable(name))));
      } catch (NoSuchTableException droppedMeanwhile) {
        // listed, then dropped: not shown
      }
    }
    return tables;
  }

  private interface Part {
    com.fasterxml.jackson.databind.JsonNode get() throws Exception;
  }

  private static void part(ObjectNode report, String name, Part part) {
    try {
      report.set(name, part.get());
    } catch (Exception e) {
      report.putObject(name).put("error", "Cannot report " + name + ": " + e.getMessage());
    }
  }
}
