package io.verglas.materializer.testing;

import io.verglas.table.PrimaryKeys;
import io.verglas.table.VerglasTableProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
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
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * The table's rows with the row-lineage columns ({@code _row_id},
   * {@code _last_updated_sequence_number}) as Iceberg's generic reader materializes them.
   */
  public static List<Record> readWithLineage(Table table) {
    table.refresh();
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table)
        .project(MetadataColumns.schemaWithRowLineage(table.schema())).build()) {
      records.forEach(record -> rows.add(record.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** The paths of the table's live data files (current snapshot). */
  public static List<String> liveDataFiles(Table table) {
    List<String> files = new ArrayList<>();
    forEachTask(table, task -> files.add(task.file().location()));
    return files;
  }

  /**
   * The delete files attached to the live data files (current snapshot), each once: a file a
   * scan splits attaches its deletes to every split. A DV is told apart from the other DVs of
   * its Puffin file by its offset.
   */
  public static List<DeleteFile> liveDeletes(Table table) {
    Map<String, DeleteFile> deletes = new LinkedHashMap<>();
    forEachTask(table, task -> task.deletes().forEach(
        delete -> deletes.putIfAbsent(delete.location() + "#" + delete.contentOffset(), delete)));
    return new ArrayList<>(deletes.values());
  }

  private static void forEachTask(Table table, Consumer<FileScanTask> action) {
    table.refresh();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(action);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The sum of the numeric snapshot summary values under {@code keys} (absent counts 0), over
   * the table's snapshots that {@code which} accepts.
   */
  public static long summaryTotal(Table table, Predicate<Snapshot> which, String... keys) {
    table.refresh();
    long total = 0;
    for (Snapshot snapshot : table.snapshots()) {
      if (which.test(snapshot)) {
        for (String key : keys) {
          total += Long.parseLong(snapshot.summary().getOrDefault(key, "0"));
        }
      }
    }
    return total;
  }

  public static Namespace namespace(String name) {
    return Namespace.of(name);
  }
}
