package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.catalog.Catalogs;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.table.CreateTableRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The whole path, end to end, in one process on random ports: create a primary-key table over
 * Flight, push 50 000 rows (inserts, updates of earlier keys, deletes) from several batches,
 * wait for the materializer's commit, then read the table with Iceberg's own generic reader
 * through the S3 endpoint and the JDBC catalog from endpoints.json, and its files with a plain
 * AWS SDK client.
 */
class LocalStackITCase {
  private static final TableIdentifier EVENTS = TableIdentifier.of("demo", "events");
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(5, "version", Types.IntegerType.get()));
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(120);

  /** The small stack at parallelism 2, with workers on the default database. */
  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().options(config -> config.parallelism(2)
      .workersJdbcUrl(LocalConfig.WORKERS_JDBC_URL_DEFAULT)).build();
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }

  @Test
  void pushedRowsBecomeTheLastVersionOfEachKeyAndSurviveARestart() throws Exception {
    assertEndpointsFileHasTheContractShape();
    Map<Long, Map<String, Object>> model = new TreeMap<>();
    List<PutAck> acks = new ArrayList<>();
    try (VerglasClient client = client()) {
      client.createTable(new CreateTableRequest(List.of("demo"), "events", SCHEMA, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of()));
      try (TableWriter writer = client.openWriter(EVENTS)) {
        for (int batch = 0; batch < 4; batch++) {          // 40 000 inserts
          acks.add(send(client, writer, model, rows(batch * 10_000L, 10_000, 1)));
        }
        // The inserts committed first, so the updates and deletes below replace rows in
        // earlier data files (deletion vectors) rather than rows still in the writer's buffer.
        awaitCommitted(catalogFromEndpoints(), acks);
        List<Map<String, Object>> mixed = new ArrayList<>();
        mixed.addAll(rows(0, 5_000, 2));                     // updates of earlier keys
        mixed.addAll(deletes(5_000, 2_500));                 // deletes of earlier keys
        mixed.addAll(rows(40_000, 2_500, 1));                // new keys
        acks.add(send(client, writer, model, mixed));
      }
    }
    assertThat(acks.stream().mapToInt(PutAck::rows).sum()).isEqualTo(50_000);

    Catalog catalog = catalogFromEndpoints();
    awaitCommitted(catalog, acks);
    assertThat(readTable(catalog)).isEqualTo(model);
    assertStandardClientReadsTheSameRows(model);
    assertTableFilesReadableWithPlainS3Client(catalog);
    assertMaintenanceStatusServed();
    assertReadsOfTheTableShowAsHeat(catalog);

    local.stop();
    local.start();
    Catalog reopened = catalogFromEndpoints();
    assertThat(readTable(reopened)).as("after restart").isEqualTo(model);
    try (VerglasClient client = client(); TableWriter writer = client.openWriter(EVENTS)) {
      acks.add(send(client, writer, model, rows(0, 1_000, 3)));  // updates after the restart
    }
    awaitCommitted(reopened, acks);
    assertThat(readTable(reopened)).as("updates after restart").isEqualTo(model);
  }

  /**
   * Commit warming on the event path, end to end: the materializer commits and publishes its
   * event, the cache node follows the feed and walks the commit; the first client to plan the
   * table then finds every metadata object it reads (metadata file, manifest list, manifests)
   * in the node's metadata store. No client has read the table before.
   */
  @Test
  void theMaterializersCommitIsWarmBeforeAnyClientPlansIt() throws Exception {
    PutAck ack;
    try (VerglasClient client = client()) {
      client.createTable(new CreateTableRequest(List.of("demo"), "events", SCHEMA, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of()));
      try (TableWriter writer = client.openWriter(EVENTS)) {
        ack = send(client, writer, new TreeMap<>(), rows(0, 2_000, 1));
      }
    }
    long sequence = awaitCommitEvent(ack);
    awaitWalked(sequence);

    JsonNode before = adminJson("/stats");
    Catalog fresh = catalogFromEndpoints();
    int files = 0;
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        fresh.loadTable(EVENTS).newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask ignored : tasks) {
        files++;
      }
    }
    JsonNode after = adminJson("/stats");
    assertThat(files).isPositive();
    assertThat(after.at("/metadata/hits").asLong()).as("planning read the metadata store")
        .isGreaterThan(before.at("/metadata/hits").asLong());
    assertThat(after.at("/metadata/misses").asLong()).as("nothing planning read was missing: %s", after)
        .isEqualTo(before.at("/metadata/misses").asLong());
  }

  /** The feed sequence of the commit event that covers {@code ack}'s WAL position. */
  private long awaitCommitEvent(PutAck ack) throws Exception {
    long deadline = System.nanoTime() + COMMIT_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (String line : adminText("/events?from=1&table=demo.events").split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        io.verglas.events.FeedEntry entry = io.verglas.events.FeedEventParser.entryFromJson(line);
        if (entry.event().orElse(null) instanceof io.verglas.events.CatalogEvent commit) {
          String committed = commit.summary().get("verglas.wal." + ack.stream());
          if (committed != null && Long.parseLong(committed) >= ack.sequence()) {
            return entry.feedSequence();
          }
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("No commit event for WAL position " + ack.sequence() + " within " + COMMIT_TIMEOUT);
  }

  /**
   * Waits until the node has seen feed entry {@code sequence} and has no walk queued or
   * running, twice in a row (the watcher records the sequence just before it queues the walk).
   */
  private void awaitWalked(long sequence) throws Exception {
    long deadline = System.nanoTime() + COMMIT_TIMEOUT.toNanos();
    int settled = 0;
    while (settled < 2) {
      JsonNode awareness = adminJson("/stats").path("awareness");
      boolean done = awareness.path("lastSequence").asLong() >= sequence
          && awareness.path("walksPending").asLong() == 0;
      settled = done ? settled + 1 : 0;
      if (System.nanoTime() > deadline) {
        throw new AssertionError("The cache node did not walk feed entry " + sequence + ": " + awareness);
      }
      Thread.sleep(200);
    }
  }

  private JsonNode adminJson(String path) throws Exception {
    return new ObjectMapper().readTree(adminText(path));
  }

  private String adminText(String path) throws Exception {
    JsonNode endpoints = new ObjectMapper().readTree(local.dataDir().resolve("endpoints.json").toFile());
    java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(
            endpoints.at("/admin/uri").asText() + path))
        .header("Authorization", "Bearer " + endpoints.at("/admin/token").asText()).build();
    java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
        .send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  @Test
  void badBatchesAreRejectedWholeAndLeaveNothing() throws Exception {
    Map<Long, Map<String, Object>> model = new TreeMap<>();
    try (VerglasClient client = client()) {
      client.createTable(new CreateTableRequest(List.of("demo"), "events", SCHEMA, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of()));

      assertThatThrownBy(() -> pushWrongType(client))
          .isInstanceOfSatisfying(VerglasException.class, e ->
              assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("id");

      List<Map<String, Object>> nullKey = rows(100, 10, 1);
      nullKey.get(3).put("id", null);
      assertThatThrownBy(() -> {
        try (TableWriter writer = client.openWriter(EVENTS)) {
          send(client, writer, new HashMap<>(), nullKey);
        }
      }).isInstanceOfSatisfying(VerglasException.class, e ->
              assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("row 3").hasMessageContaining("id");

      List<PutAck> acks = new ArrayList<>();
      try (TableWriter writer = client.openWriter(EVENTS)) {
        acks.add(send(client, writer, model, rows(1_000_000, 5, 1)));
      }
      Catalog catalog = catalogFromEndpoints();
      awaitCommitted(catalog, acks);
      assertThat(readTable(catalog)).isEqualTo(model);
    }
  }

  private void pushWrongType(VerglasClient client) throws Exception {
    Schema wrong = new Schema(Types.NestedField.optional(1, "id", Types.StringType.get()));
    org.apache.arrow.vector.types.pojo.Schema arrow = new org.apache.arrow.vector.types.pojo.Schema(
        List.of(new Field("id", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator);
        TableWriter writer = client.openWriter(EVENTS)) {
      VarCharVector ids = (VarCharVector) root.getVector("id");
      ids.allocateNew(2);
      ids.setSafe(0, "one".getBytes(StandardCharsets.UTF_8));
      ids.setSafe(1, "two".getBytes(StandardCharsets.UTF_8));
      root.setRowCount(2);
      writer.write(root).join();
    } catch (java.util.concurrent.CompletionException e) {
      throw (Exception) e.getCause();
    }
    assertThat(wrong).isNotNull();
  }

  private static List<Map<String, Object>> rows(long firstId, int count, int version) {
    List<Map<String, Object>> rows = new ArrayList<>(count);
    for (long id = firstId; id < firstId + count; id++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id);
      row.put("name", "name-" + id + "-v" + version);
      row.put("amount", id * 0.5 + version);
      row.put("ts", OffsetDateTime.ofInstant(Instant.ofEpochSecond(1_700_000_000L + id), ZoneOffset.UTC));
      row.put("version", version);
      rows.add(row);
    }
    return rows;
  }

  private static List<Map<String, Object>> deletes(long firstId, int count) {
    List<Map<String, Object>> rows = new ArrayList<>(count);
    for (long id = firstId; id < firstId + count; id++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id);
      row.put("_op", "D");
      rows.add(row);
    }
    return rows;
  }

  /** Sends rows as one batch, waits for its ack, and applies them to the model. */
  private static PutAck send(VerglasClient client, TableWriter writer,
      Map<Long, Map<String, Object>> model, List<Map<String, Object>> rows) {
    PutAck ack;
    try (RowBatchBuilder builder = client.rowBatchBuilder(EVENTS)) {
      rows.forEach(builder::add);
      try (VectorSchemaRoot batch = builder.build()) {
        ack = writer.write(batch).join();
      }
    } catch (java.util.concurrent.CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
    for (Map<String, Object> row : rows) {
      Long id = (Long) row.get("id");
      if ("D".equals(row.get("_op"))) {
        model.remove(id);
      } else {
        model.put(id, row);
      }
    }
    return ack;
  }

  private VerglasClient client() {
    EndpointsFile e = local.stack().endpoints();
    return VerglasClient.builder().uri(e.flightUri()).token(e.flightToken()).build();
  }

  private Catalog catalogFromEndpoints() {
    EndpointsFile e = EndpointsFile.read(local.dataDir().resolve("endpoints.json"));
    return Catalogs.load(e.catalogName(), e.catalogProperties());
  }

  /**
   * A standard Iceberg client (Iceberg's jars and AWS bundle only, in a JVM of its own) reads
   * the table, deletion vectors applied: built from exactly the advertised catalog properties,
   * and as a client of the cache node's REST catalog given only its token and the S3 keys.
   */
  private void assertStandardClientReadsTheSameRows(Map<Long, Map<String, Object>> model)
      throws Exception {
    Map<Long, Map<String, String>> expected = new TreeMap<>();
    model.forEach((id, row) -> {
      Map<String, String> strings = new LinkedHashMap<>();
      SCHEMA.columns().forEach(c -> strings.put(c.name(), String.valueOf(row.get(c.name()))));
      expected.put(id, strings);
    });
    for (StandardClient.Catalog catalog : StandardClient.Catalog.values()) {
      Map<Long, Map<String, String>> read = new TreeMap<>();
      for (Map<String, String> row
          : StandardClient.readRows(local.dataDir().resolve("endpoints.json"), catalog, EVENTS)) {
        assertThat(read.put(Long.parseLong(row.get("id")), row)).as("duplicate key").isNull();
      }
      assertThat(read).as("read through the %s catalog", catalog).isEqualTo(expected);
    }
  }

  /** The admin API's maintenance status: file counts for a table, 404 for an unknown one. */
  private void assertMaintenanceStatusServed() throws Exception {
    JsonNode endpoints = new ObjectMapper().readTree(local.dataDir().resolve("endpoints.json").toFile());
    String admin = endpoints.at("/admin/uri").asText();
    String bearer = "Bearer " + endpoints.at("/admin/token").asText();
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<String> status = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(admin + "/maintenance?table=demo.events"))
        .header("Authorization", bearer).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(status.statusCode()).isEqualTo(200);
    JsonNode json = new ObjectMapper().readTree(status.body());
    assertThat(json.at("/table").asText()).isEqualTo("demo.events");
    assertThat(json.at("/files/data-files").asInt()).isPositive();
    assertThat(json.at("/files/data-bytes").asLong()).isPositive();
    assertThat(json.has("pending")).isTrue();
    assertThat(json.has("last-maintenance")).isTrue();
    java.net.http.HttpResponse<String> missing = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(admin + "/maintenance?table=demo.nope"))
        .header("Authorization", bearer).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(missing.statusCode()).isEqualTo(404);
    java.net.http.HttpResponse<String> anonymous = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(admin + "/maintenance?table=demo.events")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).as("reads need admin.token").isEqualTo(401);
  }

  /**
   * The cache node follows the feed, so once it has walked the table's commit, reads of the
   * table's data files are classified: {@code /heat} shows the table's columns as read.
   */
  private void assertReadsOfTheTableShowAsHeat(Catalog catalog) throws Exception {
    JsonNode report = HeatProbe.awaitHeat(EndpointsFile.read(local.dataDir().resolve("endpoints.json")), "demo.events",
        () -> readTable(catalog), Duration.ofSeconds(60));
    assertThat(report.at("/partitions/0/columns").findValuesAsText("column"))
        .as("columns read, in %s", report).contains("id", "name");
  }

  private void assertEndpointsFileHasTheContractShape() throws Exception {
    JsonNode json = new ObjectMapper().readTree(local.dataDir().resolve("endpoints.json").toFile());
    for (String path : List.of("/s3/endpoint", "/s3/region", "/s3/accessKey", "/s3/secretKey",
        "/s3/bucket", "/flight/uri", "/flight/token", "/catalog/name", "/catalog/restUri",
        "/catalog/properties/type", "/catalog/properties/uri", "/catalog/properties/warehouse",
        "/catalog/properties/io-impl", "/catalog/properties/s3.endpoint", "/admin/uri", "/admin/token",
        "/catalog/token",
        "/events/uri")) {
      assertThat(json.at(path).asText()).as(path).isNotBlank();
    }
    assertThat(json.at("/catalog/properties/type").asText()).isEqualTo("jdbc");
    assertThat(json.at("/catalog/properties/warehouse").asText()).isEqualTo("s3://warehouse/");
    assertThat(json.at("/flight/uri").asText()).startsWith("grpc+tcp://127.0.0.1:");
  }

  /** Waits until the table's committed WAL position covers every acknowledged batch. */
  private static void awaitCommitted(Catalog catalog, List<PutAck> acks) throws InterruptedException {
    Map<String, Long> needed = new HashMap<>();
    acks.forEach(a -> needed.merge(a.stream(), a.sequence(), Math::max));
    long deadline = System.nanoTime() + COMMIT_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      Table table = catalog.loadTable(EVENTS);
      Snapshot current = table.currentSnapshot();
      if (current != null && needed.entrySet().stream().allMatch(n -> {
        String committed = current.summary().get("verglas.wal." + n.getKey());
        return committed != null && Long.parseLong(committed) >= n.getValue();
      })) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("WAL positions " + needed + " not committed within " + COMMIT_TIMEOUT);
  }

  private static Map<Long, Map<String, Object>> readTable(Catalog catalog) throws Exception {
    Map<Long, Map<String, Object>> rows = new TreeMap<>();
    Table table = catalog.loadTable(EVENTS);
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (Types.NestedField field : table.schema().columns()) {
          row.put(field.name(), record.getField(field.name()));
        }
        Map<String, Object> previous = rows.put((Long) record.getField("id"), row);
        assertThat(previous).as("duplicate key %s", record.getField("id")).isNull();
      }
    }
    return rows;
  }

  private void assertTableFilesReadableWithPlainS3Client(Catalog catalog) {
    EndpointsFile e = local.stack().endpoints();
    Table table = catalog.loadTable(EVENTS);
    String prefix = table.location().substring(("s3://" + e.bucket() + "/").length()) + "/";
    try (S3Client s3 = S3Client.builder().endpointOverride(e.s3Endpoint()).forcePathStyle(true)
        .region(Region.of(e.region()))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(e.accessKey(), e.secretKey())))
        .build()) {
      List<S3Object> objects = s3.listObjectsV2Paginator(b -> b.bucket(e.bucket()).prefix(prefix))
          .contents().stream().toList();
      List<String> keys = objects.stream().map(S3Object::key).toList();
      assertThat(keys).anyMatch(k -> k.contains("/data/") && k.endsWith(".parquet"));
      assertThat(keys).anyMatch(k -> k.endsWith(".puffin"));
      assertThat(keys).anyMatch(k -> k.contains("/metadata/") && k.endsWith(".metadata.json"));
      String dataKey = keys.stream().filter(k -> k.endsWith(".parquet")).findFirst().orElseThrow();
      ResponseBytes<GetObjectResponse> bytes = s3.getObjectAsBytes(b -> b.bucket(e.bucket()).key(dataKey));
      byte[] content = bytes.asByteArray();
      S3Object listed = objects.stream().filter(o -> o.key().equals(dataKey)).findFirst().orElseThrow();
      assertThat((long) content.length).isEqualTo(listed.size());
      assertThat(new String(content, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("PAR1");
    }
  }
}
