package io.verglas.ingest.flight;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.ingest.table.TableCache;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.CreateTableRequestParser;
import io.verglas.table.PrimaryKeys;
import io.verglas.table.VerglasTableProperties;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;

/**
 * The {@code create-table} action: body = {@link CreateTableRequestParser} JSON; result = the
 * created table ({@code namespace, name, uuid, location, formatVersion, schema, primaryKey}).
 *
 * <p>Creates missing namespace levels first. The table gets the primary key as identifier
 * fields, {@code format-version} 3 unless the request asks for 2, and
 * {@code verglas.managed=true} (reserved: a request may not set it otherwise). Every check
 * that can fail runs before the catalog is touched, so a bad request creates nothing.
 */
final class CreateTableAction {
  private static final Set<String> FORMAT_VERSIONS = Set.of("2", "3");
  private final Catalog catalog;
  private final TableCache tables;

  CreateTableAction(Catalog catalog, TableCache tables) {
    this.catalog = catalog;
    this.tables = tables;
  }

  byte[] run(byte[] body) {
    CreateTableRequest request = parse(body);
    TableIdentifier id = request.identifier();
    try {
      ArrowSchemas.checkSupported(request.schema());
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException("Cannot create table " + id + ": " + e.getMessage(), e);
    }
    Schema schema;
    try {
      schema = PrimaryKeys.withPrimaryKey(request.schema(), request.primaryKey());
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw new IllegalArgumentException("Cannot create table " + id + ": " + e.getMessage(), e);
    }
    Map<String, String> properties = properties(id, request.properties());
    createNamespace(id.namespace());
    try {
      catalog.buildTable(id, schema)
          .withPartitionSpec(request.partitionSpec())
          .withProperties(properties)
          .create();
    } catch (AlreadyExistsException e) {
      throw new AlreadyExistsException("Cannot create table %s: it already exists", id);
    }
    return TableJson.toBytes(tables.reload(id));
  }

  private static CreateTableRequest parse(byte[] body) {
    String json = new String(body, StandardCharsets.UTF_8);
    try {
      return CreateTableRequestParser.fromJson(json);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("Cannot parse")) {
        throw e;
      }
      throw new IllegalArgumentException("Cannot parse create-table request: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // Iceberg's schema/spec parsers fail with assorted runtime exceptions on bad JSON.
      throw new IllegalArgumentException("Cannot parse create-table request: " + e.getMessage(), e);
    }
  }

  private static Map<String, String> properties(TableIdentifier id, Map<String, String> requested) {
    Map<String, String> properties = new LinkedHashMap<>(requested);
    String managed = properties.get(VerglasTableProperties.MANAGED);
    if (managed != null && !managed.equals("true")) {
      throw new IllegalArgumentException("Cannot create table " + id + ": property "
          + VerglasTableProperties.MANAGED + " is reserved (got '" + managed + "')");
    }
    properties.put(VerglasTableProperties.MANAGED, "true");
    String version = properties.putIfAbsent(TableProperties.FORMAT_VERSION,
        VerglasTableProperties.FORMAT_VERSION_DEFAULT);
    if (version != null && !FORMAT_VERSIONS.contains(version)) {
      throw new IllegalArgumentException("Cannot create table " + id + ": format-version '"
          + version + "' is not supported (use 3, or 2 for engines without deletion vectors)");
    }
    return properties;
  }

  private void createNamespace(Namespace namespace) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return;
    }
    String[] levels = namespace.levels();
    for (int depth = 1; depth <= levels.length; depth++) {
      Namespace level = Namespace.of(Arrays.copyOf(levels, depth));
      if (!namespaces.namespaceExists(level)) {
        try {
          namespaces.createNamespace(level);
        } catch (AlreadyExistsException e) {
          // Created concurrently by another request: just as good.
        }
      }
    }
  }
}
