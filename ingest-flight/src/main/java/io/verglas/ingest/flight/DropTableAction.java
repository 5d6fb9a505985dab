package io.verglas.ingest.flight;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import io.verglas.protocol.DropTableRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The {@code drop-table} action: drops a Verglas table from the catalog ({@code purge} also
 * deletes its files; {@code dropEmptyNamespace} also its namespace levels, leaf first, while
 * they are left with no table and no namespace). Tables not created through Verglas are
 * refused. Batches already in the WAL for the table are skipped by the materializer, which no
 * longer finds the table.
 */
final class DropTableAction {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final Catalog catalog;
  private final TableCache tables;

  DropTableAction(Catalog catalog, TableCache tables) {
    this.catalog = catalog;
    this.tables = tables;
  }

  byte[] run(byte[] body) {
    DropTableRequest request = DropTableRequest.fromJson(new String(body, StandardCharsets.UTF_8));
    TableIdentifier id = request.identifier();
    IngestTable table = tables.reload(id);
    if (!table.managed()) {
      throw new IllegalArgumentException("Cannot drop table " + id + ": it is not managed by "
          + "Verglas");
    }
    tables.invalidate(id);
    if (!catalog.dropTable(id, request.purge())) {
      throw new NoSuchTableException("Cannot drop table %s: it does not exist", id);
    }
    tables.invalidate(id);
    int namespacesDropped = request.dropEmptyNamespace() ? dropEmptyLevels(id.namespace()) : 0;
    ObjectNode node = MAPPER.createObjectNode();
    request.namespace().forEach(node.putArray("namespace")::add);
    node.put("name", id.name());
    node.put("uuid", table.uuid());
    node.put("dropped", true);
    node.put("purged", request.purge());
    node.put("namespacesDropped", namespacesDropped);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Drops {@code namespace} and then its parents while each is empty; returns how many. */
  private int dropEmptyLevels(Namespace namespace) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return 0;
    }
    String[] levels = namespace.levels();
    for (int n = levels.length; n > 0; n--) {
      Namespace level = Namespace.of(Arrays.copyOf(levels, n));
      try {
        if (!namespaces.listNamespaces(level).isEmpty()
            || !catalog.listTables(level).isEmpty() || !namespaces.dropNamespace(level)) {
          return levels.length - n;
        }
      } catch (NamespaceNotEmptyException | NoSuchNamespaceException e) {
        return levels.length - n; // another request's table or namespace is in it
      }
    }
    return levels.length;
  }
}
