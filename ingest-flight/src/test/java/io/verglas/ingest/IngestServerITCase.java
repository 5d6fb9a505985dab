package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowIpc;
import io.verglas.protocol.IngestProtocol;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableInfo;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The happy paths, end to end: SDK → Flight → validation → group commit → S3. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IngestServerITCase {
  @TempDir
  static Path dir;
  private static TestEnvironment env;

  @BeforeAll
  static void startEnvironment() throws Exception {
    env = new TestEnvironment(dir);
  }

  @AfterAll
  static void stopEnvironment() throws Exception {
    env.close();
  }

  private static VerglasClient client(IngestServer server) {
    return VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN).build();
  }

  @Test
  void everyAcknowledgedBatchOfConcurrentWritersIsInTheWal() throws Exception {
    String stream = "concurrent";
    TableIdentifier events = TestTables.id("conc", "events");
    TableIdentifier clicks = TestTables.id("conc", "clicks");
    try (BufferAllocator serverAllocator = new RootAllocator();
        IngestServer server = env.server(stream).allocator(serverAllocator).build().start();
        VerglasClient admin = client(server)) {
      TableInfo created = admin.createTable(TestTables.events("conc", "events"));
      admin.createTable(TestTables.clicks("conc", "clicks"));
      assertThat(created.primaryKey()).containsExactly("id");
      assertThat(created.formatVersion()).isEqualTo(3);

      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<List<PutAck>>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        writers.add(pool.submit(() -> write(server, writer, writer < 2 ? events : clicks)));
      }
      Map<String, Long> ackedRows = new HashMap<>();
      List<PutAck> acks = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        List<PutAck> writerAcks = writers.get(w).get(60, TimeUnit.SECONDS);
        assertThat(writerAcks).hasSize(BATCHES);
        acks.addAll(writerAcks);
        ackedRows.merge(w < 2 ? "conc.events" : "conc.clicks",
            writerAcks.stream().mapToLong(PutAck::rows).sum(), Long::sum);
      }
      pool.shutdown();

      List<WalSegment> segments = env.laneSegments(stream);
      Map<String, Long> walRows = new HashMap<>();
      Map<String, WalSegment> byPosition = new HashMap<>();
      Map<String, Long> lastSequence = new HashMap<>();
      for (WalSegment segment : segments) {
        String lane = segment.header().streamId();
        // Listed in key order: each lane's sequences run 1, 2, 3, ... without gaps.
        assertThat(segment.header().sequence()).isEqualTo(lastSequence.getOrDefault(lane, 0L) + 1);
        lastSequence.put(lane, segment.header().sequence());
        byPosition.put(lane + "/" + segment.header().sequence(), segment);
        String table = String.join(".", segment.header().tableName());
        for (WalBatch batch : segment.batches()) {
          walRows.merge(table, countRows(batch, serverAllocator), Long::sum);
        }
      }
      assertThat(walRows).isEqualTo(ackedRows);
      assertThat(segments.size()).as("group commit packs batches").isLessThan(acks.size());
      for (PutAck ack : acks) {
        WalBatch batch = byPosition.get(ack.stream() + "/" + ack.sequence()).batches()
            .get(ack.batch());
        assertThat(batch.hlc()).isEqualTo(ack.hlc());
        assertThat(batch.rowCount()).isEqualTo(ack.rows());
        assertThat(ack.stream()).matches(stream + "(\\.[123])?");
      }
      assertThat(segments.stream().flatMap(s -> s.batches().stream())
          .filter(b -> b.idempotencyKey() != null).count()).isEqualTo(2 * BATCHES);
    }
  }

  private static final int BATCHES = 8;
  private static final int ROWS = 40;

  /** Writer 0 pipelines, writer 1 waits for each ack before sending on; 2 and 3 use keys. */
  private static List<PutAck> write(IngestServer server, int writer, TableIdentifier table) {
    try (VerglasClient client = client(server);
        RowBatchBuilder rows = client.rowBatchBuilder(table);
        TableWriter out = client.openWriter(table)) {
      List<CompletableFuture<PutAck>> futures = new ArrayList<>();
      for (int b = 0; b < BATCHES; b++) {
        for (int r = 0; r < ROWS + b; r++) {
          rows.add(row(table, writer * 100_000L + b * 1_000L + r));
        }
        try (VectorSchemaRoot batch = rows.build()) {
          CompletableFuture<PutAck> ack = writer >= 2
              ? out.write(batch, "w" + writer + "-b" + b) : out.write(batch);
          if (writer == 1) {
            ack.join();
          }
          futures.add(ack);
        }
      }
      out.flush();
      assertThat(out.acks()).containsExactlyElementsOf(futures.stream().map(CompletableFuture::join).toList());
      return out.acks();
    }
  }

  private static Map<String, Object> row(TableIdentifier table, long id) {
    Map<String, Object> row = new LinkedHashMap<>();
    if (table.name().equals("events")) {
      row.put("id", id);
      row.put("name", "event-" + id);
      row.put("score", id / 3.0);
      row.put("at", Instant.ofEpochSecond(1_700_000_000L + id));
    } else {
      row.put("user", "user-" + id % 7);
      row.put("page", "/p/" + id);
      row.put("at", LocalDateTime.of(2024, 5, 1, 10, 0).plusSeconds(id));
    }
    return row;
  }

  /** Waits until the server holds a batch in its (long) flush interval. */
  private static void awaitBufferedBatch(VerglasClient client) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!client.health().json().matches(".*\"bufferedBytes\":[1-9].*")) {
      assertThat(System.nanoTime()).as("batch reached the server").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static long countRows(WalBatch batch, BufferAllocator allocator) throws Exception {
    long rows = 0;
    try (ArrowStreamReader reader = ArrowIpc.open(batch.arrowIpc(), allocator)) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    assertThat(rows).isEqualTo(batch.rowCount());
    return rows;
  }

  @Test
  void acceptsAColumnAddedAfterTheSchemaWasCached() throws Exception {
    TableIdentifier table = TestTables.id("evolve", "events");
    try (IngestServer server = env.server("evolve").build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("evolve", "events"));
      Schema before = client.tableSchema(table);

      env.catalog().loadTable(table).updateSchema()
          .addColumn("region", org.apache.iceberg.types.Types.StringType.get()).commit();
      // The writer knows about the new column; the server's cached schema does not yet.
      List<Field> fields = new ArrayList<>(before.getFields());
      fields.add(new Field("region", FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
      try (RowBatchBuilder rows = RowBatchBuilder.forSchema(new Schema(fields), client.allocator())) {
        rows.add(Map.of("id", 1L, "name", "one", "region", "eu"));
        try (VectorSchemaRoot batch = rows.build()) {
          assertThat(client.push(table, List.of(batch)).get(0).rows()).isEqualTo(1);
        }
      }
      assertThat(env.laneSegments("evolve").get(0).header().schemaId()).isEqualTo(1);
      assertThat(client.tableSchema(table).findField("region")).isNotNull();
    }
  }

  @Test
  void describesTablesAndItself() throws Exception {
    try (IngestServer server = env.server("describe").build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("desc", "events"));
      client.createTable(new io.verglas.table.CreateTableRequest(List.of("desc", "sub"), "clicks",
          TestTables.CLICKS_SCHEMA, List.of(), null, Map.of()));

      Schema schema = client.tableSchema(TestTables.id("desc", "events"));
      assertThat(schema.getFields()).extracting(f -> f.getName())
          .containsExactly("id", "name", "score", "at", "_op");
      assertThat(schema.findField("id").isNullable()).isFalse();
      assertThat(schema.findField("score").isNullable()).isTrue();
      assertThat(schema.getCustomMetadata()).containsEntry(IngestProtocol.SCHEMA_PRIMARY_KEY, "[\"id\"]");
      assertThat(client.listTables()).extracting(TableIdentifier::toString)
          .contains("desc.events", "desc.sub.clicks");
      assertThat(client.listTables(org.apache.iceberg.catalog.Namespace.of("desc", "sub")))
          .extracting(TableIdentifier::toString).containsExactly("desc.sub.clicks");
      assertThat(client.health().status()).isEqualTo("ok");
      assertThat(client.health().stream()).isEqualTo("describe");
      assertThat(env.catalog().loadTable(TestTables.id("desc", "events")).properties())
          .containsEntry("verglas.managed", "true")
          .containsEntry("write.parquet.bloom-filter-enabled.column.id", "true"); // the key's
      assertThat(env.catalog().loadTable(TableIdentifier.of(org.apache.iceberg.catalog.Namespace.of("desc", "sub"), "clicks")).properties())
          .noneSatisfy((key, value) -> assertThat(key).startsWith("write.parquet.bloom-filter"));
    }
  }

  @Test
  void listFlightsAnswersAPageAtATimeAndContinuesAfterTheLastTable() throws Exception {
    try (IngestServer server = env.server("pages").build().start();
        VerglasClient client = client(server)) {
      for (String name : List.of("e", "c", "a", "d", "b")) {
        client.createTable(TestTables.events("pages", name));
      }
      client.createTable(TestTables.events("pages", "orders.v2"));
      org.apache.iceberg.catalog.Namespace pages = org.apache.iceberg.catalog.Namespace.of("pages");

      List<TableIdentifier> first = client.listTables(pages, null, 2);
      assertThat(first).extracting(TableIdentifier::name).containsExactly("a", "b");
      assertThat(client.listTables(pages, first.get(1), 3)).extracting(TableIdentifier::name)
          .containsExactly("c", "d", "e");
      assertThat(client.listTables(pages, TestTables.id("pages", "e"), 3))
          .extracting(TableIdentifier::name).containsExactly("orders.v2");
      assertThat(client.listTables(pages)).hasSize(6);

      assertThatThrownBy(() -> client.listTables(pages, null, 0))
          .hasMessageContaining("page size 0");
    }
  }

  @Test
  void aRestartedServerContinuesItsStreamAndCloseFlushesPendingBatches() throws Exception {
    String stream = "restart";
    TableIdentifier table = TestTables.id("restart", "events");
    PutAck beforeRestart;
    try (IngestServer server = env.server("restart-admin").build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("restart", "events"));
    }
    IngestServer first = IngestServer.builder().catalog(env.catalog()).objectStore(env.endpoint())
        .streamId(stream).token(TestEnvironment.TOKEN).flushInterval(Duration.ofHours(1))
        // Nothing may flush the batch before close does: not the interval, and not the linger
        // that writes a segment early while no lane is busy.
        .flushLinger(Duration.ofHours(1))
        .lanes(1).build().start();
    try (VerglasClient client = VerglasClient.builder().uri(first.location())
            .token(TestEnvironment.TOKEN).writeRetries(0).build();
        RowBatchBuilder rows = client.rowBatchBuilder(table)) {
      TableWriter writer = client.openWriter(table);
      rows.add(Map.of("id", 1L, "name", "one"));
      CompletableFuture<PutAck> pending;
      try (VectorSchemaRoot batch = rows.build()) {
        pending = writer.write(batch);
      }
      awaitBufferedBatch(client);
      assertThat(pending).isNotDone();
      first.close();
      beforeRestart = pending.get(10, TimeUnit.SECONDS);
      assertThat(beforeRestart.sequence()).isEqualTo(1);
      assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class)
          .hasMessage("UNAVAILABLE: Ingest server is shutting down; every batch acknowledged so "
              + "far is durable");
    }
    try (IngestServer second = env.server(stream).lanes(1).build().start();
        VerglasClient client = client(second);
        RowBatchBuilder rows = client.rowBatchBuilder(table)) {
      rows.add(Map.of("id", 2L, "name", "two"));
      List<PutAck> acks;
      try (VectorSchemaRoot batch = rows.build()) {
        acks = client.push(table, List.of(batch));
      }
      assertThat(acks.get(0).sequence()).isEqualTo(2);
      assertThat(acks.get(0).hlc()).isGreaterThan(beforeRestart.hlc());
    }
    assertThat(env.segmentKeys(stream)).containsExactly(
        TestEnvironment.LAYOUT.segmentKey(stream, 1), TestEnvironment.LAYOUT.segmentKey(stream, 2));
    assertThat(env.segments(stream)).extracting(s -> s.header().recordCount()).containsExactly(1L, 1L);
  }

  @Test
  void alterTableAddsNullableColumnsAndDropTableRemovesTheTable() throws Exception {
    TableIdentifier table = TestTables.id("admin", "events");
    try (IngestServer server = env.server("admin-actions").build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("admin", "events"));

      TableInfo altered = client.addColumn(table, "region",
          org.apache.iceberg.types.Types.StringType.get());

      assertThat(altered.schema().findField("region").isOptional()).isTrue();
      assertThat(client.tableSchema(table).findField("region")).isNotNull();
      try (RowBatchBuilder rows = client.rowBatchBuilder(table)) {
        rows.add(Map.of("id", 1L, "name", "one", "region", "eu"));
        try (VectorSchemaRoot batch = rows.build()) {
          assertThat(client.push(table, List.of(batch)).get(0).rows()).isEqualTo(1);
        }
      }

      client.dropTable(table, false);

      assertThat(env.catalog().tableExists(table)).isFalse();
      assertThat(client.listTables()).doesNotContain(table);
      assertThatThrownBy(() -> client.tableSchema(table)).isInstanceOfSatisfying(
          VerglasException.class, e -> assertThat(e.code())
              .isEqualTo(org.apache.arrow.flight.FlightStatusCode.NOT_FOUND));
    }
  }

  @Test
  void dropTableCanDropTheNamespaceLevelsItLeavesEmpty() throws Exception {
    org.apache.iceberg.catalog.SupportsNamespaces namespaces =
        (org.apache.iceberg.catalog.SupportsNamespaces) env.catalog();
    org.apache.iceberg.catalog.Namespace outer = org.apache.iceberg.catalog.Namespace.of("scratch");
    org.apache.iceberg.catalog.Namespace inner = org.apache.iceberg.catalog.Namespace.of("scratch", "x");
    try (IngestServer server = env.server("drop-namespaces").build().start();
        VerglasClient client = client(server)) {
      for (String name : List.of("a", "b")) {
        client.createTable(new io.verglas.table.CreateTableRequest(List.of("scratch", "x"), name,
            TestTables.CLICKS_SCHEMA, List.of(), null, Map.of()));
      }
      client.createTable(TestTables.clicks("kept", "c"));

      client.dropTable(TableIdentifier.of("kept", "c"), true);
      assertThat(namespaces.namespaceExists(org.apache.iceberg.catalog.Namespace.of("kept")))
          .as("a plain drop leaves the namespace").isTrue();
      client.dropTableAndEmptyNamespace(TableIdentifier.of(inner, "a"));
      assertThat(namespaces.namespaceExists(inner)).as("b is still in it").isTrue();
      client.dropTableAndEmptyNamespace(TableIdentifier.of(inner, "b"));
      assertThat(namespaces.namespaceExists(inner)).isFalse();
      assertThat(namespaces.namespaceExists(outer)).isFalse();
    }
  }

  @Test
  void aRetriedKeyIsWrittenOnceAlsoAfterARestart() throws Exception {
    String stream = "retries";
    TableIdentifier table = TestTables.id("retry", "clicks");
    PutAck first;
    try (IngestServer server = env.server(stream).build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.clicks("retry", "clicks"));
      first = pushKeyed(client, table, "click-1", "u1");
      assertThat(pushKeyed(client, table, "click-1", "u1")).isEqualTo(first);
    }
    try (IngestServer restarted = env.server(stream).build().start();
        VerglasClient client = client(restarted)) {
      assertThat(pushKeyed(client, table, "click-1", "u1")).isEqualTo(first);
      assertThat(pushKeyed(client, table, "click-2", "u2")).isNotEqualTo(first);
      assertThat(restarted.metrics().snapshot().duplicatesAbsorbed()).isEqualTo(1);
    }
    long copies = env.laneSegments(stream).stream().flatMap(s -> s.batches().stream())
        .filter(b -> "click-1".equals(b.idempotencyKey())).count();
    assertThat(copies).isEqualTo(1);
  }

  private static PutAck pushKeyed(VerglasClient client, TableIdentifier table, String key,
      String user) {
    try (RowBatchBuilder rows = client.rowBatchBuilder(table);
        TableWriter writer = client.openWriter(table)) {
      rows.add(Map.of("user", user, "page", "/"));
      try (VectorSchemaRoot batch = rows.build()) {
        PutAck ack = writer.write(batch, key).join();
        return ack;
      }
    }
  }

  @Test
  void metricsCountBatchesRowsRejectsAndLatencies() throws Exception {
    TableIdentifier table = TestTables.id("metrics", "events");
    try (IngestServer server = env.server("metrics").build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("metrics", "events"));
      try (RowBatchBuilder rows = client.rowBatchBuilder(table)) {
        rows.add(Map.of("id", 1L, "name", "one")).add(Map.of("id", 2L, "name", "two"));
        try (VectorSchemaRoot batch = rows.build()) {
          client.push(table, List.of(batch));
        }
        rows.add(Map.of("id", 3L));
        try (VectorSchemaRoot bad = rows.build()) {
          assertThatThrownBy(() -> client.push(table, List.of(bad)))
              .isInstanceOf(VerglasException.class);
        }
      }

      String text = client.metrics();

      assertThat(text).contains("verglas_ingest_batches_total 1\n", "verglas_ingest_rows_total 2\n",
          "verglas_ingest_acknowledged_rows_total 2\n", "verglas_ingest_segments_total 1\n",
          "verglas_ingest_rejects_total{reason=\"null_required\"} 1\n",
          "verglas_ingest_ack_latency_seconds_count 1\n",
          "verglas_ingest_flush_latency_seconds_count 1\n",
          "# TYPE verglas_ingest_ack_latency_seconds histogram\n");
      assertThat(text).containsPattern("verglas_ingest_wal_bytes_total [1-9]\\d*\n");
      assertThat(client.health().json()).contains("\"acknowledgedBatches\":1", "\"rejects\":1",
          "\"lanes\":[{\"stream\":\"metrics\",");
    }
  }
}
