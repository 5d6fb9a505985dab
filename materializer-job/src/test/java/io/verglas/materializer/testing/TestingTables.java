package io.verglas.materializer.testing;

import io.verglas.table.PrimaryKeys;
import io.verglas.table.VerglasTableProperties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** The tables the tests use, and reading them back. */
public final class TestingTables {
  /** {@code id int (key), name string, region string, value long}, partitioned by region. */
  public static final Schema USERS = PrimaryKeys.withPrimaryKey(new Schema(
      Types.NestedField.required(1, "id", Types.IntegerType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "region", Types.StringType.get()),
      Types.NestedField.optional(4, "value", Types.LongType.get())), List.of("id"));

  /** {@code ts long, msg string}, no key: append-only. */
  public static final Schema EVENTS = new Schema(
      Types.NestedField.optional(1, "ts", Types.LongType.get()),
      Types.NestedField.optional(2, "msg", Types.StringType.get()));

  private TestingTables() {}

  public static Table createUsers(Catalog catalog, String namespace, String name) {
    return create(catalog, TableIdentifier.of(namespace, name), USERS,
        PartitionSpec.builderFor(USERS).identity("region").build());
  }

  public static Table createUsers(Catalog catalog, String namespace, String name,
      int formatVersion) {
    return create(catalog, TableIdentifier.of(namespace, name), USERS,
        PartitionSpec.builderFor(USERS).identity("region").build(), formatVersion);
  }

  public static Table createEvents(Catalog catalog, String namespace, String name) {
    return create(catalog, TableIdentifier.of(namespace, name), EVENTS, PartitionSpec.unpartitioned());
  }

  public static Table create(Catalog catalog, TableIdentifier id, Schema schema, PartitionSpec spec) {
    return create(catalog, id, schema, spec, Integer.parseInt(
        VerglasTableProperties.FORMAT_VERSION_DEFAULT));
  }

  /** A managed table of the given Iceberg format version (2: position deletes, 3: DVs). */
  public static Table create(Catalog catalog, TableIdentifier id, Schema schema, PartitionSpec spec,
      int formatVersion) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(id.namespace());
    }
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion));
    props.put(VerglasTableProperties.MANAGED, "true");
    return catalog.createTable(id, schema, spec, props);
  }

  /** All live rows, as {@link Record}s. */
  public static List<Record> read(Table table) {
    table.refresh();
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(record -> rows.add(record.copy()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }

  public static Namespace namespace(String name) {
    return Namespace.of(name);
  }
}
