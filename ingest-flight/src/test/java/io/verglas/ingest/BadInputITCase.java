package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.table.CreateTableRequest;
import io.verglas.wal.WalSegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.AsyncPutListener;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of bad input gets its precise status and message, and nothing of it reaches the
 * WAL: batches accepted before a bad one in the same stream are acknowledged; the rejected
 * batch is not written (checked after a later batch of the same table became durable, since
 * segments are written in order).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BadInputITCase {
  private static final String STREAM = "bad-input";
  private static final int MAX_ROWS = 100;

  @TempDir
  static Path dir;
  private static TestEnvironment env;
  private static BufferAllocator serverAllocator;
  private static IngestServer server;

  private VerglasClient client;
  private TestVectors vectors;
  private TableIdentifier table;

  @BeforeAll
  static void start() throws Exception {
    env = new TestEnvironment(dir);
    serverAllocator = new RootAllocator();
    server = env.server(STREAM).maxBatchRows(MAX_ROWS).allocator(serverAllocator).build().start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    serverAllocator.close();
    env.close();
  }

  @BeforeEach
  void createTable(TestInfo test) {
    client = VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN).build();
    vectors = new TestVectors(client.allocator());
    String name = test.getTestMethod().orElseThrow().getName().toLowerCase();
    client.createTable(TestTables.events("bad", name));
    table = TestTables.id("bad", name);
  }

  @AfterEach
  void closeClient() throws Exception {
    vectors.close();
    client.close();
  }

  @Test
  void wrongType() {
    assertStreamRejected(v -> v.root(v.strings("id", "1"), v.strings("name", "a")),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot write to bad.wrongtype: the stream's columns "
            + "do not fit the table: 1 problem: column 'id': expected long but got Arrow Utf8");
  }

  @Test
  void unknownColumn() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"), v.strings("color", "red")),
        FlightStatusCode.INVALID_ARGUMENT, "1 problem: column 'color': unknown column; "
            + "bad.unknowncolumn has columns [id, name, score, at]");
  }

  @Test
  void duplicateColumn() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"), v.strings("name", "b")),
        FlightStatusCode.INVALID_ARGUMENT, "1 problem: column 'name': appears more than once "
            + "(fields 1 and 2)");
  }

  @Test
  void missingPrimaryKeyColumn() {
    assertStreamRejected(v -> v.root(v.strings("name", "a")),
        FlightStatusCode.INVALID_ARGUMENT, "1 problem: column 'id': primary key column is missing");
  }

  @Test
  void nullPrimaryKey() {
    assertBatchRejected(rows -> rows.add(Map.of("id", 5L, "name", "x")).add(Map.of("name", "y")),
        "Cannot write batch 1 to bad.nullprimarykey: 1 problem: row 1, column 'id': null in "
            + "primary key column");
  }

  @Test
  void nullInRequiredColumn() {
    assertBatchRejected(rows -> rows.add(Map.of("id", 5L)),
        "Cannot write batch 1 to bad.nullinrequiredcolumn: 1 problem: row 0, column 'name': "
            + "null in required column");
  }

  @Test
  void badOpValue() {
    // Built by hand: RowBatchBuilder already refuses such values on the client.
    TableWriter writer = client.openWriter(table);
    CompletableFuture<PutAck> good = writer.write(vectors.root(vectors.longs("id", 1L),
        vectors.strings("name", "a"), vectors.strings("_op", (String) null)));
    CompletableFuture<PutAck> bad = writer.write(vectors.root(vectors.longs("id", 2L, 3L),
        vectors.strings("name", "b", "c"), vectors.strings("_op", "D", "X")));

    assertThat(good.join().rows()).isEqualTo(1);
    assertThatThrownBy(bad::join).cause().isInstanceOfSatisfying(VerglasException.class, e -> {
      assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.description()).isEqualTo("Cannot write batch 1 to bad.badopvalue: 1 problem: "
          + "row 1, column '_op': invalid value 'X' (expected 'U', 'D' or null)");
    });
    assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
    assertOnlyGoodRowsWritten(1);
  }

  @Test
  void oversizeBatch() {
    assertBatchRejected(rows -> {
      for (int i = 0; i <= MAX_ROWS; i++) {
        rows.add(Map.of("id", (long) i, "name", "n"));
      }
      return rows;
    }, "Cannot write batch 1 to bad.oversizebatch: 1 problem: batch has 101 rows but at most "
        + "100 are allowed; split it");
  }

  @Test
  void deletesNeedOnlyTheirKey() throws Exception {
    try (RowBatchBuilder rows = client.rowBatchBuilder(table);
        TableWriter writer = client.openWriter(table)) {
      rows.delete(Map.of("id", 1L));
      try (VectorSchemaRoot batch = rows.build()) {
        assertThat(writer.write(batch).get(10, TimeUnit.SECONDS).rows()).isEqualTo(1);
      }
    }
  }

  @Test
  void unknownTable() {
    TableIdentifier nope = TestTables.id("bad", "nope");
    assertThatThrownBy(() -> client.tableSchema(nope))
        .isInstanceOfSatisfying(VerglasException.class, e -> {
          assertThat(e.code()).isEqualTo(FlightStatusCode.NOT_FOUND);
          assertThat(e.description()).contains("bad.nope");
        });
    assertThatThrownBy(() -> writeOneRow(client, nope)).isInstanceOfSatisfying(VerglasException.class,
        e -> assertThat(e.code()).isEqualTo(FlightStatusCode.NOT_FOUND));
  }

  @Test
  void missingOrWrongToken() throws Exception {
    try (VerglasClient anonymous = VerglasClient.builder().uri(server.location()).build();
        VerglasClient wrong = VerglasClient.builder().uri(server.location()).token("nope").build()) {
      assertThatThrownBy(anonymous::health).isInstanceOfSatisfying(VerglasException.class, e -> {
        assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
        assertThat(e.description()).isEqualTo(
            "Missing bearer token: send the header 'authorization: Bearer <token>'");
      });
      assertThatThrownBy(() -> wrong.createTable(TestTables.events("bad", "sneaky")))
          .isInstanceOfSatisfying(VerglasException.class, e -> {
            assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
            assertThat(e.description()).isEqualTo("Invalid bearer token");
          });
      assertThatThrownBy(() -> writeOneRow(wrong, table)).isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
    assertThat(env.catalog().tableExists(TestTables.id("bad", "sneaky"))).isFalse();
    assertThat(walRows(table)).isZero();
  }

  @Test
  void createTableErrors() {
    Schema nested = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "point", Types.StructType.of(
            Types.NestedField.optional(3, "x", Types.DoubleType.get()))));
    assertCreateFails(new CreateTableRequest(List.of("bad"), "nested", nested, List.of("id"), null, Map.of()),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot create table bad.nested: Column type "
            + "struct<3: x: optional double> is not supported for ingest yet");
    assertCreateFails(TestTables.events("bad", "createtableerrors"),
        FlightStatusCode.ALREADY_EXISTS, "Cannot create table bad.createtableerrors: it already exists");
    assertCreateFails(new CreateTableRequest(List.of("bad"), "badkey", TestTables.EVENTS_SCHEMA,
            List.of("nope"), null, Map.of()),
        FlightStatusCode.INVALID_ARGUMENT, "Invalid primary key: no top-level column 'nope'");
    assertCreateFails(new CreateTableRequest(List.of("bad"), "v1", TestTables.EVENTS_SCHEMA,
            List.of("id"), null, Map.of("format-version", "1")),
        FlightStatusCode.INVALID_ARGUMENT, "format-version '1' is not supported");
    assertThat(env.catalog().tableExists(TestTables.id("bad", "nested"))).isFalse();
    assertThat(env.catalog().tableExists(TestTables.id("bad", "badkey"))).isFalse();
  }

  @Test
  void rawFlightClientErrors() throws Exception {
    try (FlightClient raw = FlightClient.builder(client.allocator(),
        new Location(server.location())).build()) {
      CredentialCallOption auth = new CredentialCallOption(new BearerCredentialWriter(TestEnvironment.TOKEN));

      assertFlightError(() -> raw.doAction(new Action("create-table",
              "{not json".getBytes(StandardCharsets.UTF_8)), auth).next(),
          FlightStatusCode.INVALID_ARGUMENT, "Cannot parse create-table request");
      assertFlightError(() -> raw.doAction(new Action("drop-table", new byte[0]), auth).next(),
          FlightStatusCode.UNIMPLEMENTED, "Unknown action 'drop-table' (supported: create-table, health)");
      assertFlightError(() -> raw.getStream(new Ticket(new byte[] {1}), auth).next(),
          FlightStatusCode.UNIMPLEMENTED, "DoGet is not supported");
      assertFlightError(() -> raw.getSchema(FlightDescriptor.path("events"), auth),
          FlightStatusCode.INVALID_ARGUMENT, "needs a namespace and a table name");
      assertThat(raw.listActions(auth)).extracting(a -> a.getType())
          .containsExactly("create-table", "health");

      // A batch whose app metadata is not the documented JSON is refused before it is written.
      try (VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L), vectors.strings("name", "a"))) {
        AsyncPutListener listener = new AsyncPutListener();
        FlightClient.ClientStreamListener put = raw.startPut(
            FlightDescriptor.path("bad", "rawflightclienterrors"), batch, listener, auth);
        ArrowBuf metadata = client.allocator().buffer(4);
        metadata.writeBytes("oops".getBytes(StandardCharsets.UTF_8));
        put.putNext(metadata);
        put.completed();
        assertFlightError(put::getResult, FlightStatusCode.INVALID_ARGUMENT,
            "Cannot write batch 0 to bad.rawflightclienterrors: Cannot parse batch metadata: not JSON");
      }
    }
    assertThat(walRows(table)).isZero();
  }

  @Test
  void unmanagedTable() {
    TableIdentifier foreign = TestTables.id("bad", "foreign");
    env.catalog().createTable(foreign, TestTables.EVENTS_SCHEMA);
    assertThatThrownBy(() -> writeOneRow(client, foreign)).isInstanceOfSatisfying(VerglasException.class, e -> {
      assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.description()).contains("the table is not managed by Verglas");
    });
  }

  /** Writes one valid row through its own stream and waits for the ack. */
  private void writeOneRow(VerglasClient writerClient, TableIdentifier target) {
    try (TableWriter writer = writerClient.openWriter(target);
        VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L), vectors.strings("name", "a"))) {
      writer.write(batch);
      writer.flush();
    }
  }

  /** A stream whose columns do not fit: rejected before its first batch. */
  private void assertStreamRejected(Function<TestVectors, VectorSchemaRoot> bad,
      FlightStatusCode code, String message) {
    VectorSchemaRoot batch = bad.apply(vectors);
    assertThatThrownBy(() -> {
      try (TableWriter writer = client.openWriter(table)) {
        writer.write(batch);
          writer.flush();
      }
    }).isInstanceOfSatisfying(VerglasException.class, e -> {
      assertThat(e.code()).isEqualTo(code);
      assertThat(e.description()).contains(message);
    });
    assertOnlyGoodRowsWritten(0);
  }

  /** A good batch, then a bad one of the same schema: the first is acknowledged, the second refused. */
  private void assertBatchRejected(Function<RowBatchBuilder, RowBatchBuilder> bad, String message) {
    try (RowBatchBuilder rows = client.rowBatchBuilder(table)) {
      TableWriter writer = client.openWriter(table);
      rows.add(Map.of("id", 1L, "name", "good")).add(Map.of("id", 2L, "name", "good"));
      CompletableFuture<PutAck> good;
      CompletableFuture<PutAck> rejected;
      try (VectorSchemaRoot first = rows.build()) {
        good = writer.write(first);
      }
      try (VectorSchemaRoot second = bad.apply(rows).build()) {
        rejected = writer.write(second);
      }
      assertThat(good.join().rows()).isEqualTo(2);
      assertThatThrownBy(rejected::join).cause().isInstanceOfSatisfying(VerglasException.class, e -> {
        assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
        assertThat(e.description()).isEqualTo(message);
      });
      assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
      try (VectorSchemaRoot more = rows.add(Map.of("id", 3L, "name", "late")).build()) {
        assertThatThrownBy(() -> writer.write(more)).isInstanceOf(VerglasException.class);
      }
    }
    assertOnlyGoodRowsWritten(2);
  }

  private void assertOnlyGoodRowsWritten(long goodRows) {
    // A batch written after the rejected one, through the same ordered stream, is durable: so
    // the rejected one, had it been accepted, would be in the WAL by now.
    try (RowBatchBuilder rows = client.rowBatchBuilder(table)) {
      rows.add(Map.of("id", 99L, "name", "marker"));
      try (VectorSchemaRoot marker = rows.build()) {
        client.push(table, List.of(marker));
      }
    }
    assertThat(walRows(table)).isEqualTo(goodRows + 1);
  }

  private long walRows(TableIdentifier id) {
    Map<String, Long> rows = new HashMap<>();
    for (WalSegment segment : env.segments(STREAM)) {
      rows.merge(String.join(".", segment.header().tableName()), segment.header().recordCount(), Long::sum);
    }
    return rows.getOrDefault(id.toString(), 0L);
  }

  private void assertCreateFails(CreateTableRequest request, FlightStatusCode code, String message) {
    assertThatThrownBy(() -> client.createTable(request))
        .isInstanceOfSatisfying(VerglasException.class, e -> {
          assertThat(e.code()).isEqualTo(code);
          assertThat(e.description()).contains(message);
        });
  }

  private static void assertFlightError(Runnable call, FlightStatusCode code, String message) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).isEqualTo(code);
      assertThat(e.status().description()).contains(message);
    });
  }
}
