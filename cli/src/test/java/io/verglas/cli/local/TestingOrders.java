package io.verglas.cli.local;

import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * A small primary-key table {@code shop.orders (id, item)} pushed over Flight to a stack and
 * read back (public for the containers profile's test of the compose stack).
 */
public final class TestingOrders {
  public static final TableIdentifier ORDERS = TableIdentifier.of("shop", "orders");
  static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "item", Types.StringType.get()));

  private TestingOrders() {}

  /**
   * A small local stack on random ports in {@code dir}, checkpointing every second, without
   * workers (tests of workers give theirs a schema of its own).
   */
  static LocalConfig.Builder smallStack(Path dir) {
    return LocalConfig.builder().dataDir(dir).s3Port(0).flightPort(0).adminPort(0)
        .checkpointInterval(java.time.Duration.ofSeconds(1)).dramCacheBytes(64L << 20).parallelism(1)
        .workersJdbcUrl("none");
  }

  /** Creates the table when {@code first} is 0, then pushes ids {@code [first, first + count)} as one acknowledged batch. */
  static void push(EndpointsFile endpoints, long first, int count) throws Exception {
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri()).token(endpoints.flightToken()).build()) {
      push(client, first, count);
    }
  }

  /** {@link #push(EndpointsFile, long, int)} through {@code client}. */
  public static void push(VerglasClient client, long first, int count) {
    if (first == 0) {
      client.createTable(new CreateTableRequest(List.of("shop"), "orders", SCHEMA, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of()));
    }
    try (TableWriter writer = client.openWriter(ORDERS)) {
      write(client, writer, first, count);
    }
  }

  /** Writes ids {@code [first, first + count)} as one batch and waits for its acknowledgement. */
  static void write(VerglasClient client, TableWriter writer, long first, int count) {
    try (RowBatchBuilder builder = client.rowBatchBuilder(ORDERS)) {
      for (long id = first; id < first + count; id++) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("item", "item-" + id);
        builder.add(row);
      }
      try (VectorSchemaRoot batch = builder.build()) {
        writer.write(batch).join();
      }
    }
  }

  public static List<Long> ids(long first, int count) {
    return LongStream.range(first, first + count).boxed().toList();
  }

  /** The table's ids, sorted, once it holds {@code expected} rows or after {@code timeout}. */
  public static List<Long> awaitIds(Catalog catalog, int expected, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Long> ids = List.of();
    while (System.nanoTime() < deadline && ids.size() != expected) {
      Thread.sleep(300);
      Table table = catalog.loadTable(ORDERS);
      List<Long> read = new ArrayList<>();
      if (table.currentSnapshot() != null) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          records.forEach(record -> read.add((Long) record.getField("id")));
        }
      }
      read.sort(null);
      ids = read;
    }
    return ids;
  }

  /**
   * Reads the table through {@code catalog} (through the cache node: its heat) until it holds
   * {@code expected} rows or two minutes have passed; returns the rows last counted.
   */
  static int awaitRows(Catalog catalog, int expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    int rows = -1;
    while (System.nanoTime() < deadline && rows != expected) {
      Table table = catalog.loadTable(ORDERS);
      rows = 0;
      if (table.currentSnapshot() != null) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record ignored : records) {
            rows++;
          }
        }
      }
      if (rows != expected) {
        Thread.sleep(300);
      }
    }
    return rows;
  }
}
