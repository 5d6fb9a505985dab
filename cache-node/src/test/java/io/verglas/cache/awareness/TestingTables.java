package io.verglas.cache.awareness;

import io.verglas.cache.TestingCacheNode;
import io.verglas.catalog.Catalogs;
import io.verglas.events.CatalogEvent;
import io.verglas.store.ObjectStoreEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;

/**
 * Real Iceberg tables in a JDBC catalog on SQLite whose FileIO is S3FileIO through a cache
 * node: tables are created and written, and scans planned, the way any Iceberg client does it.
 */
final class TestingTables implements AutoCloseable {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "name", Types.StringType.get()));

  private final Path db;
  private final Catalog catalog;
  private int tasks;

  TestingTables(Path db, URI endpoint) {
    this.db = db;
    this.catalog = catalog(db, endpoint);
  }

  /** The catalog this instance writes through. */
  Catalog catalog() {
    return catalog;
  }

  /** A fresh catalog over the same database (a new client that has cached nothing). */
  Catalog freshCatalog(URI endpoint) {
    return catalog(db, endpoint);
  }

  private static Catalog catalog(Path db, URI endpoint) {
    ObjectStoreEndpoint s3 = new ObjectStoreEndpoint(endpoint, "us-east-1",
        TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY, TestingCacheNode.BUCKET);
    return Catalogs.load("test", Catalogs.sqlite(db.toString(), s3.warehouse(), s3.s3FileIoProperties()));
  }

  Table create(String namespace, String name, Map<String, String> properties) {
    if (catalog instanceof org.apache.iceberg.catalog.SupportsNamespaces namespaces
        && !namespaces.namespaceExists(Namespace.of(namespace))) {
      namespaces.createNamespace(Namespace.of(namespace));
    }
    return catalog.createTable(TableIdentifier.of(namespace, name), SCHEMA,
        PartitionSpec.unpartitioned(), properties);
  }

  /** Appends {@code files} data files of {@code rows} rows each in one commit. */
  void append(Table table, int files, int rows) {
    org.apache.iceberg.AppendFiles append = table.newAppend();
    for (int f = 0; f < files; f++) {
      append.appendFile(write(table, rows));
    }
    append.commit();
  }

  private DataFile write(Table table, int rows) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, tasks++)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      for (int i = 0; i < rows; i++) {
        GenericRecord record = GenericRecord.create(table.schema());
        record.setField("id", (long) i);
        record.setField("name", "row-" + i);
        closing.write(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** The commit event a producer publishes for the table's current snapshot. */
  static CatalogEvent commitEvent(Table table) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    String metadata = ((HasTableOperations) table).operations().current().metadataFileLocation();
    String uuid = table.uuid().toString();
    String[] name = table.name().split("\\.");
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshot.snapshotId()), "test", Instant.now(),
        List.of(name[name.length - 2], name[name.length - 1]), uuid, snapshot.snapshotId(),
        snapshot.parentId(), snapshot.operation(), snapshot.sequenceNumber(),
        snapshot.timestampMillis(), snapshot.summary(), metadata, 0);
  }

  /**
   * Plans a full scan of the table with a fresh client and reads each data file's Parquet
   * footer, as an engine plans a query; returns the number of files.
   */
  int planAndReadFooters(URI endpoint, String namespace, String name) {
    Catalog fresh = freshCatalog(endpoint);
    try {
      Table table = fresh.loadTable(TableIdentifier.of(namespace, name));
      List<FileScanTask> tasks = new ArrayList<>();
      try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
        planned.forEach(tasks::add);
      }
      for (FileScanTask task : tasks) {
        ParquetUtil.fileMetrics(table.io().newInputFile(task.file().location()), MetricsConfig.getDefault());
      }
      return tasks.size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      closeQuietly(fresh);
    }
  }

  static void closeQuietly(Catalog catalog) {
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public void close() {
    closeQuietly(catalog);
  }
}
