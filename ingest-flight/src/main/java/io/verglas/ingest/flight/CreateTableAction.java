package io.verglas.ingest.flight;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.CreateTableRequestParser;
import io.verglas.table.IdentifierRules;
import io.verglas.table.PrimaryKeys;
import io.verglas.table.TableIdentifiers;
import io.verglas.table.VerglasTableProperties;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code create-table} action: body = {@link CreateTableRequestParser} JSON; result = the
 * created table ({@code namespace, name, uuid, location, formatVersion, schema, primaryKey}).
 *
 * <p>The identifier must follow {@link IdentifierRules} (INVALID_ARGUMENT naming the rule
 * otherwise). The table gets the primary key as identifier fields, {@code format-version} 3
 * unless the request asks for 2, and {@code verglas.managed=true} (reserved: a request may not
 * set it otherwise). Every check that can fail runs before the catalog is touched, so a bad
 * request creates nothing.
 *
 * <p>Missing namespace levels are created just before the table. If the table then cannot be
 * created (it exists, or the catalog or storage fails), the levels this request created are
 * dropped again, deepest first, so a failed create leaves no namespace behind; a level that
 * meanwhile got a table or namespace of another request is not empty and stays. That other
 * request may then find its namespace dropped under it: its create is tried once more.
 */
final class CreateTableAction {
  private static final Logger LOG = LoggerFactory.getLogger(CreateTableAction.class);
  private static final Set<String> FORMAT_VERSIONS = Set.of("2", "3");
  private final Catalog catalog;
  private final TableCache tables;

  CreateTableAction(Catalog catalog, TableCache tables) {
    this.catalog = catalog;
    this.tables = tables;
  }

  byte[] run(byte[] body) {
    CreateTableRequest request = parse(body);
    IdentifierRules.validate(request.namespace(), request.name());
    TableIdentifier id = request.identifier();
    String name = TableIdentifiers.toString(id);
    try {
      ArrowSchemas.checkSupported(request.schema());
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException("Cannot create table " + name + ": " + e.getMessage(), e);
    }
    Schema schema;
    try {
      schema = PrimaryKeys.withPrimaryKey(request.schema(), request.primaryKey());
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw new IllegalArgumentException("Cannot create table " + name + ": " + e.getMessage(), e);
    }
    Map<String, String> properties = properties(name, request.properties());
    PrimaryKeys.bloomFilterProperties(schema).forEach(properties::putIfAbsent);
    Table created;
    try {
      created = create(id, schema, request.partitionSpec(), properties);
    } catch (AlreadyExistsException | CommitFailedException e) {
      // A create's commit fails only when the table exists (Iceberg's own create() says so too)
      throw new AlreadyExistsException("Cannot create table %s: it already exists", name);
    }
    // Not cached: a created table may never be written (a catalog of many tables), and the cache
    // would hold it for its expiry; its first write loads it, one catalog query. An entry of a
    // dropped table of the same name goes.
    tables.invalidate(id);
    return TableJson.toBytes(IngestTable.of(id, created));
  }

  /**
   * Creates the table and the namespace levels it lacks; on failure drops those levels. Tried
   * twice when the namespace vanished between the two (another request's failed create).
   *
   * <p>Created as a create transaction, whose table afterwards holds the metadata it committed:
   * the answer and the cache take it from there, where {@code create()}'s table would load the
   * metadata file it just wrote again (a catalog query and an object read per create).
   */
  private Table create(TableIdentifier id, Schema schema, PartitionSpec spec,
      Map<String, String> properties) {
    for (int attempt = 1; ; attempt++) {
      List<Namespace> created = createNamespace(id);
      try {
        Transaction create = catalog.buildTable(id, schema).withPartitionSpec(spec)
            .withProperties(properties).createTransaction();
        create.commitTransaction();
        return create.table();
      } catch (NoSuchNamespaceException e) {
        dropNamespaces(created, id);
        if (attempt == 2) {
          throw e;
        }
      } catch (RuntimeException e) {
        dropNamespaces(created, id);
        throw e;
      }
    }
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

  private static Map<String, String> properties(String id, Map<String, String> requested) {
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

  /** Creates the missing levels of the table's namespace; returns those it created, in order. */
  private List<Namespace> createNamespace(TableIdentifier table) {
    List<Namespace> created = new ArrayList<>();
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return created;
    }
    String[] levels = table.namespace().levels();
    for (int depth = 1; depth <= levels.length; depth++) {
      Namespace level = Namespace.of(Arrays.copyOf(levels, depth));
      if (!namespaces.namespaceExists(level)) {
        try {
          namespaces.createNamespace(level);
          created.add(level);
        } catch (AlreadyExistsException e) {
          // Created concurrently by another request: just as good, and that request's to drop.
        } catch (RuntimeException e) {
          // Iceberg's JDBC catalog reports the race as a SQL error (a duplicate key on
          // PostgreSQL), not as AlreadyExistsException: seen when clients create tables of a
          // new namespace at once. The level existing now is the same outcome.
          if (!namespaces.namespaceExists(level)) {
            dropNamespaces(created, table);
            throw e;
          }
        }
      }
    }
    return created;
  }

  /** Best effort: a level that is not empty (or cannot be dropped now) stays, with a warning. */
  private void dropNamespaces(List<Namespace> created, TableIdentifier table) {
    if (created.isEmpty()) {
      return;
    }
    SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
    for (int i = created.size() - 1; i >= 0; i--) {
      Namespace level = created.get(i);
      try {
        namespaces.dropNamespace(level);
      } catch (NamespaceNotEmptyException e) {
        return; // another request's table or namespace is in it, and so in its parents
      } catch (RuntimeException e) {
        LOG.warn("Cannot drop namespace {}, created for table {} whose creation failed: {}",
            level, TableIdentifiers.toString(table), e.toString());
        return;
      }
    }
  }
}
