package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.verglas.access.ScopedTokens;
import io.verglas.access.TableScope;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.protocol.AlterTableRequest;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.BatchCompression;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.table.CreateTableRequest;
import io.verglas.wal.WalSegment;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of bad input gets its precise status and message, and nothing of it reaches the
 * WAL or the table: batches accepted before a bad one in the same stream are acknowledged, the
 * rejected batch is not written (checked once the server holds no buffered bytes, so nothing
 * can still be on its way), and the table's schema and snapshots are untouched. Each test also
 * checks that the reject was counted under its reason.
 */
@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS,
    threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BadInputITCase {
  private static final String STREAM = "bad-input";
  private static final int MAX_ROWS = 100;
  private static final long MAX_BYTES = 4096;
  private static final int MAX_CELL_BYTES = 64;
  private static final ScopedTokens SCOPED = new ScopedTokens("scoped-token-key-of-the-bad-input-tests",
      Clock.systemUTC());
  /** A primary-key table with a column of each kind the type checks care about. */
  static final Schema TYPED = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "small", Types.IntegerType.get()),
      Types.NestedField.optional(4, "ratio", Types.FloatType.get()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(6, "at", Types.TimestampType.withZone()),
      Types.NestedField.optional(7, "local", Types.TimestampType.withoutZone()));

  @TempDir
  static Path dir;
  private static TestEnvironment env;
  private static BufferAllocator serverAllocator;
  private static IngestServer server;

  private VerglasClient client;
  private TestVectors vectors;
  private TableIdentifier table;
  private String tableName;

  @BeforeAll
  static void start() throws Exception {
    env = new TestEnvironment(dir);
    serverAllocator = new RootAllocator();
    server = env.server(STREAM).maxBatchRows(MAX_ROWS).maxBatchBytes(MAX_BYTES)
        .maxCellBytes(MAX_CELL_BYTES).allocator(serverAllocator).scopedTokens(SCOPED).build()
        .start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    serverAllocator.close();
    env.close();
  }

  @BeforeEach
  void createTable(TestInfo test) {
    client = VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN)
        .batchCompression(compression()).build();
    vectors = new TestVectors(client.allocator());
    tableName = test.getTestMethod().orElseThrow().getName().toLowerCase();
    client.createTable(new CreateTableRequest(List.of("bad"), tableName, TYPED, List.of("id"),
        null, Map.of()));
    table = TestTables.id("bad", tableName);
  }

  @AfterEach
  void closeClient() throws Exception {
    vectors.close();
    client.close();
  }

  /** How the SDK's writers send batches here (the batches of these tests are all tiny). */
  BatchCompression compression() {
    return BatchCompression.defaults();
  }

  // ---- the stream's columns do not fit the table: refused before its first batch ----------

  @Test
  void wrongType() {
    assertStreamRejected(v -> v.root(v.strings("id", "1"), v.strings("name", "a")),
        "Cannot write to bad.wrongtype: the stream's columns do not fit the table: 1 problem: "
            + "column 'id': expected long but got Arrow Utf8 (accepted: Int(8|16|32|64, signed))",
        RejectReason.SCHEMA);
  }

  @Test
  void narrowingIsNotASafeWidening() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"),
            v.longs("small", 1L), floats64(v, "ratio", 0.5)),
        "2 problems: column 'small': expected int but got Arrow Int(64, true) (accepted: "
            + "Int(8|16|32, signed)); column 'ratio': expected float but got Arrow "
            + "FloatingPoint(DOUBLE) (accepted: FloatingPoint(SINGLE))", RejectReason.SCHEMA);
  }

  @Test
  void unsignedInteger() {
    assertStreamRejected(v -> v.root(uint32(v, "id", 1), v.strings("name", "a")),
        "1 problem: column 'id': expected long but got Arrow Int(32, false) (unsigned integers "
            + "are not accepted; send signed ones)", RejectReason.SCHEMA);
  }

  @Test
  void unknownColumn() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"), v.strings("color", "red")),
        "1 problem: column 'color': unknown column; bad.unknowncolumn has columns [id, name, "
            + "small, ratio, amount, at, local]", RejectReason.SCHEMA);
  }

  @Test
  void columnNamesAreCaseSensitive() {
    assertStreamRejected(v -> v.root(v.longs("ID", 1L), v.strings("name", "a")),
        "2 problems: column 'ID': unknown column; did you mean 'id'? (names are "
            + "case-sensitive); column 'id': primary key column is missing", RejectReason.SCHEMA);
  }

  @Test
  void duplicateColumn() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"), v.strings("name", "b")),
        "1 problem: column 'name': appears more than once (fields 1 and 2)", RejectReason.SCHEMA);
  }

  @Test
  void missingPrimaryKeyColumn() {
    assertStreamRejected(v -> v.root(v.strings("name", "a")),
        "1 problem: column 'id': primary key column is missing", RejectReason.NULL_KEY);
  }

  @Test
  void nestedType() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), struct(v, "name")),
        "1 problem: column 'name': nested Arrow type Struct is not supported: the column is "
            + "string", RejectReason.SCHEMA);
  }

  @Test
  void dictionaryEncodedColumn() throws Exception {
    long before = rejects(RejectReason.SCHEMA);
    VarCharVector values = vectors.track(new VarCharVector("dict", client.allocator()));
    values.allocateNew();
    values.setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
    values.setValueCount(1);
    Dictionary dictionary = new Dictionary(values, new DictionaryEncoding(1L, false, null));
    FieldVector encoded = vectors.track((FieldVector) DictionaryEncoder.encode(
        vectors.strings("name", "a"), dictionary));
    try (FlightClient raw = rawClient();
        VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L), encoded)) {
      FlightClient.ClientStreamListener put = raw.startPut(FlightDescriptor.path("bad", tableName),
          batch, new DictionaryProvider.MapDictionaryProvider(dictionary), new AsyncPutListener(),
          auth());
      put.putNext();
      put.completed();
      assertFlightError(put::getResult, FlightStatusCode.INVALID_ARGUMENT, "1 problem: column "
          + "'name': dictionary-encoded columns are not supported; send plain string values");
    }
    assertNothingWritten(table, 0);
    assertThat(rejects(RejectReason.SCHEMA) - before).isEqualTo(1);
  }

  @Test
  void decimalScaleAndPrecision() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"),
            decimal(v, "amount", 12, 3, new BigDecimal("1.250"))),
        "1 problem: column 'amount': expected decimal(9, 2) but got decimal(12, 3): scale must "
            + "match and precision must not grow", RejectReason.SCHEMA);
  }

  @Test
  void timestampZoneMismatch() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"),
            timestamp(v, "at", TimeUnit.MICROSECOND, null, 1L)),
        "1 problem: column 'at': expected timestamptz (a timestamp with a time zone) but got "
            + "Arrow Timestamp(MICROSECOND, null)", RejectReason.SCHEMA);
  }

  @Test
  void invalidTimeZone() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"),
            timestamp(v, "at", TimeUnit.MICROSECOND, "Mars/Olympus", 1L)),
        "1 problem: column 'at': invalid time zone 'Mars/Olympus' (use an IANA name like 'UTC' "
            + "or an offset like '+01:00')", RejectReason.SCHEMA);
  }

  @Test
  void opColumnOfTheWrongType() {
    assertStreamRejected(v -> v.root(v.longs("id", 1L), v.strings("name", "a"), v.ints("_op", 1)),
        "1 problem: column '_op': must be Utf8 ('U' or 'D') but got Arrow Int(32, true)",
        RejectReason.SCHEMA);
  }

  @Test
  void schemaDriftAfterTheWriterFetchedTheSchema() {
    org.apache.arrow.vector.types.pojo.Schema stale = client.tableSchema(table);
    env.catalog().loadTable(table).updateSchema().deleteColumn("ratio").commit();

    assertStreamRejected(v -> {
      RowBatchBuilder rows = RowBatchBuilder.forSchema(stale, client.allocator());
      VectorSchemaRoot batch = rows.add(Map.of("id", 1L, "name", "a", "ratio", 0.5f)).build();
      rows.close();
      return batch;
    }, "Cannot write to bad.schemadriftafterthewriterfetchedtheschema: the stream's columns do "
        + "not fit the table (the writer's schema is schema id 0 but the table is at schema id 1 "
        + "now; fetch it again with GetSchema): 1 problem: column 'ratio': unknown column; "
        + "bad.schemadriftafterthewriterfetchedtheschema has columns [id, name, small, amount, "
        + "at, local]", RejectReason.SCHEMA);
  }

  // ---- a batch with bad rows: the batches before it are acknowledged, it is not written ----

  @Test
  void nullPrimaryKey() {
    assertBatchRejected(v -> v.root(v.longs("id", 5L, null), v.strings("name", "x", "y")),
        "1 problem: row 1, column 'id': null in primary key column", RejectReason.NULL_KEY);
  }

  @Test
  void nullInRequiredColumn() {
    assertBatchRejected(v -> v.root(v.longs("id", 5L, 6L), v.strings("name", "x", null)),
        "1 problem: row 1, column 'name': null in required column", RejectReason.NULL_REQUIRED);
  }

  @Test
  void missingRequiredColumnOnAnUpsert() {
    assertStreamRejectedAtFirstBatch(v -> v.root(v.longs("id", 5L), v.strings("_op", "U")),
        "Cannot write batch 0 to bad.missingrequiredcolumnonanupsert: 1 problem: row 0, column "
            + "'name': required column is missing (only rows with _op 'D' may omit it)",
        RejectReason.NULL_REQUIRED);
  }

  @Test
  void badOpValue() {
    assertBatchRejected(v -> v.root(v.longs("id", 2L, 3L), v.strings("name", "b", "c"),
            v.strings("_op", "D", "X")),
        "1 problem: row 1, column '_op': invalid value 'X' (expected 'U', 'D' or null)",
        RejectReason.INVALID_OP);
  }

  @Test
  void deleteOnAnAppendOnlyTable() {
    String name = "appendonly";
    client.createTable(TestTables.clicks("bad", name));
    TableIdentifier clicks = TestTables.id("bad", name);
    try (VectorSchemaRoot batch = vectors.root(vectors.strings("user", "u"),
        vectors.strings("_op", "D"))) {
      assertThatThrownBy(() -> client.push(clicks, List.of(batch)))
          .isInstanceOfSatisfying(VerglasException.class, e -> {
            assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
            assertThat(e.description()).isEqualTo("Cannot write batch 0 to bad.appendonly: 1 "
                + "problem: row 0, column '_op': 'D' (delete) needs a primary key but "
                + "bad.appendonly is append-only");
          });
    }
    assertNothingWritten(clicks, 0);
  }

  @Test
  void decimalValueBeyondTheColumnsPrecision() {
    assertBatchRejected(v -> v.root(v.longs("id", 5L, 6L), v.strings("name", "x", "y"),
            decimal(v, "amount", 9, 2, new BigDecimal("1.50"), new BigDecimal("12345678.90"))),
        "1 problem: row 1, column 'amount': value 12345678.90 has 10 digits but the column "
            + "holds at most 9", RejectReason.VALUE);
  }

  @Test
  void nanosecondsThatWouldBeTruncated() {
    assertBatchRejected(v -> v.root(v.longs("id", 5L, 6L), v.strings("name", "x", "y"),
            timestamp(v, "at", TimeUnit.NANOSECOND, "UTC", 1_000L, 1_001L)),
        "1 problem: row 1, column 'at': value 1001 ns is not a whole number of microseconds; the "
            + "column stores microseconds, so precision would be lost", RejectReason.VALUE);
  }

  @Test
  void timestampOutOfRange() {
    assertBatchRejected(v -> v.root(v.longs("id", 5L), v.strings("name", "x"),
            timestamp(v, "at", TimeUnit.SECOND, "UTC", Long.MAX_VALUE / 10)),
        "1 problem: row 0, column 'at': timestamp 922337203685477580 seconds is out of range",
        RejectReason.VALUE);
  }

  @Test
  void stringOverTheCellLimit() {
    String big = "x".repeat(MAX_CELL_BYTES + 1);
    assertBatchRejected(v -> v.root(v.longs("id", 5L, 6L), v.strings("name", "ok", big)),
        "1 problem: row 1, column 'name': value has 65 bytes but at most 64 are allowed per cell",
        RejectReason.CELL_TOO_LARGE);
  }

  @Test
  void malformedUtf8InAString() {
    byte[] cut = {'c', 'a', 'f', (byte) 0xC3}; // 'é' without its second byte
    byte[] stray = {'a', (byte) 0x80, 'b'}; // a continuation byte with nothing to continue
    assertBatchRejected(v -> v.root(v.longs("id", 5L, 6L, 7L, 8L),
            rawStrings(v, "name", "ok".getBytes(StandardCharsets.UTF_8),
                "héllo ✓".getBytes(StandardCharsets.UTF_8), cut, stray)),
        "2 problems: row 2, column 'name': value is not valid UTF-8 (4 bytes, malformed from "
            + "byte 3); row 3, column 'name': value is not valid UTF-8 (3 bytes, malformed from "
            + "byte 1)", RejectReason.VALUE);
  }

  @Test
  void tooManyRows() {
    assertBatchRejected(v -> {
      Long[] ids = new Long[MAX_ROWS + 1];
      String[] names = new String[MAX_ROWS + 1];
      for (int i = 0; i <= MAX_ROWS; i++) {
        ids[i] = (long) i;
        names[i] = "n";
      }
      return v.root(v.longs("id", ids), v.strings("name", names));
    }, "1 problem: batch has 101 rows but at most 100 are allowed; split it",
        RejectReason.BATCH_TOO_LARGE);
  }

  @Test
  void tooManyBytes() {
    assertBatchRejected(v -> {
      Long[] ids = new Long[MAX_ROWS];
      String[] names = new String[MAX_ROWS];
      for (int i = 0; i < MAX_ROWS; i++) {
        ids[i] = (long) i;
        names[i] = "n".repeat(MAX_CELL_BYTES);
      }
      return v.root(v.longs("id", ids), v.strings("name", names));
    }, null, RejectReason.BATCH_TOO_LARGE);
  }

  // ---- what the transport and the protocol carry ------------------------------------------

  @Test
  void malformedIpcHeader() throws Exception {
    try (RawFlight raw = new RawFlight(server.port(), TestEnvironment.TOKEN)) {
      Status status = raw.put(List.of(RawFlight.data(List.of("bad", tableName),
          "not a flatbuffer".getBytes(StandardCharsets.UTF_8), new byte[0])));

      // Flight's gRPC marshaller parses the header before any handler runs, and gRPC answers.
      assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(status.getDescription()).isEqualTo("Application error processing RPC");
    }
    assertNothingWritten(table, 0);
  }

  /**
   * Runs against a server of its own: Arrow Flight 19 itself leaks the copied body of such a
   * message (32 bytes here), which would fail the shared server's allocator check.
   */
  @Test
  void malformedIpcBodyShorterThanItsBuffers() throws Exception {
    RootAllocator leaky = new RootAllocator();
    try (IngestServer own = env.server(STREAM + "-malformed").allocator(leaky).build().start();
        RawFlight raw = new RawFlight(own.port(), TestEnvironment.TOKEN);
        VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L, 2L, 3L),
            vectors.strings("name", "a", "b", "c"))) {
      List<RawFlight.IpcMessage> messages = RawFlight.messages(batch);
      RawFlight.IpcMessage schema = messages.get(0);
      RawFlight.IpcMessage records = messages.get(1);
      byte[] truncated = java.util.Arrays.copyOf(records.body(), records.body().length / 3);

      Status status = raw.put(List.of(
          RawFlight.data(List.of("bad", tableName), schema.header(), schema.body()),
          RawFlight.data(null, records.header(), truncated)));

      assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).startsWith("Cannot read batch 0 of the stream to "
          + "bad.malformedipcbodyshorterthanitsbuffers: malformed Arrow data");
      assertThat(own.metrics().snapshot().rejects().get(RejectReason.MALFORMED)).isEqualTo(1);
      assertThat(env.laneSegments(STREAM + "-malformed")).isEmpty();
    } finally {
      try {
        leaky.close();
      } catch (IllegalStateException flightLeak) {
        // see above
      }
    }
    assertNothingWritten(table, 0);
  }

  @Test
  void batchMetadataThatIsNotTheDocumentedJson() throws Exception {
    try (FlightClient raw = rawClient();
        VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L), vectors.strings("name", "a"))) {
      AsyncPutListener listener = new AsyncPutListener();
      FlightClient.ClientStreamListener put = raw.startPut(
          FlightDescriptor.path("bad", tableName), batch, listener, auth());
      ArrowBuf metadata = client.allocator().buffer(4);
      metadata.writeBytes("oops".getBytes(StandardCharsets.UTF_8));
      put.putNext(metadata);
      put.completed();
      assertFlightError(put::getResult, FlightStatusCode.INVALID_ARGUMENT,
          "Cannot write batch 0 to bad.batchmetadatathatisnotthedocumentedjson: Cannot parse "
              + "batch metadata: not JSON");
    }
    assertNothingWritten(table, 0);
    assertCounted(RejectReason.METADATA);
  }

  @Test
  void idempotencyKeyTooLong() throws Exception {
    try (FlightClient raw = rawClient();
        VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L), vectors.strings("name", "a"))) {
      AsyncPutListener listener = new AsyncPutListener();
      FlightClient.ClientStreamListener put = raw.startPut(
          FlightDescriptor.path("bad", tableName), batch, listener, auth());
      byte[] json = ("{\"idempotencyKey\":\"" + "k".repeat(300) + "\"}").getBytes(StandardCharsets.UTF_8);
      ArrowBuf metadata = client.allocator().buffer(json.length);
      metadata.writeBytes(json);
      put.putNext(metadata);
      put.completed();
      assertFlightError(put::getResult, FlightStatusCode.INVALID_ARGUMENT,
          "Cannot write batch 0 to bad.idempotencykeytoolong: Invalid idempotency key: 300 "
              + "characters, at most 256 allowed");
    }
    assertNothingWritten(table, 0);
    assertCounted(RejectReason.METADATA);
  }

  @Test
  void unknownTable() {
    TableIdentifier nope = TestTables.id("bad", "nope");
    assertThatThrownBy(() -> client.tableSchema(nope))
        .isInstanceOfSatisfying(VerglasException.class, e -> {
          assertThat(e.code()).isEqualTo(FlightStatusCode.NOT_FOUND);
          assertThat(e.description()).isEqualTo("Table does not exist: bad.nope");
        });
    assertThatThrownBy(() -> writeOneRow(client, nope)).isInstanceOfSatisfying(VerglasException.class,
        e -> {
          assertThat(e.code()).isEqualTo(FlightStatusCode.NOT_FOUND);
          assertThat(e.description()).isEqualTo("Table does not exist: bad.nope");
        });
    assertThat(env.catalog().tableExists(nope)).isFalse();
    assertCounted(RejectReason.UNKNOWN_TABLE);
  }

  @Test
  void unmanagedTable() {
    TableIdentifier foreign = TestTables.id("bad", "foreign");
    env.catalog().createTable(foreign, TestTables.EVENTS_SCHEMA);
    assertThatThrownBy(() -> writeOneRow(client, foreign)).isInstanceOfSatisfying(VerglasException.class, e -> {
      assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.description()).isEqualTo("Cannot write to bad.foreign: the table is not "
          + "managed by Verglas (table property verglas.managed is not 'true'); create it with "
          + "the create-table action");
    });
    assertNothingWritten(foreign, 0);
    assertCounted(RejectReason.UNMANAGED_TABLE);
  }

  @Test
  void descriptorThatNamesNoTable() throws Exception {
    try (FlightClient raw = rawClient()) {
      assertFlightError(() -> raw.getSchema(FlightDescriptor.path("events"), auth()),
          FlightStatusCode.INVALID_ARGUMENT, "Cannot resolve table: path [events] needs a "
              + "namespace and a table name, e.g. [\"demo\", \"events\"]");
      assertFlightError(() -> raw.getSchema(FlightDescriptor.command(new byte[] {1}), auth()),
          FlightStatusCode.INVALID_ARGUMENT, "Cannot resolve table: expected a path descriptor "
              + "[namespace..., table] but got a command");
    }
  }

  @Test
  void scopedTokenWritesAndReadsOnlyTheTablesItGrantsAndAdministersNone() {
    TableIdentifier readOnly = TestTables.id("bad", tableName + "_read");
    client.createTable(new CreateTableRequest(List.of("bad"), tableName + "_read", TYPED,
        List.of("id"), null, Map.of()));
    long before = rejects(RejectReason.PERMISSION_DENIED);
    String token = SCOPED.mint(new TableScope("hourly/run-1", Instant.now().plusSeconds(60),
        Set.of(readOnly), Set.of(table)));
    try (VerglasClient scoped = VerglasClient.builder().uri(server.location()).token(token)
        .allocator(client.allocator()).batchCompression(compression()).build()) {
      writeOneRow(scoped, table);
      assertActionFails(() -> writeOneRow(scoped, readOnly), FlightStatusCode.UNAUTHORIZED,
          "Cannot write table " + readOnly + ": token for hourly/run-1 grants writes only on ["
              + table + "]");
      assertThat(scoped.tableSchema(readOnly).findField("id")).isNotNull();
      assertActionFails(() -> scoped.tableSchema(TestTables.id("bad", "hidden")),
          FlightStatusCode.UNAUTHORIZED, "Cannot read table bad.hidden: token for hourly/run-1 "
              + "grants reads only on [");
      assertThat(scoped.listTables(org.apache.iceberg.catalog.Namespace.of("bad")))
          .containsExactlyInAnyOrder(table, readOnly);
      assertActionFails(() -> scoped.createTable(TestTables.events("bad", "sneaky")),
          FlightStatusCode.UNAUTHORIZED, "Cannot create-table: token for hourly/run-1 is scoped");
      assertActionFails(() -> scoped.dropTable(table, true), FlightStatusCode.UNAUTHORIZED,
          "Cannot drop-table: token for hourly/run-1 is scoped");
    }
    assertThat(env.catalog().tableExists(TestTables.id("bad", "sneaky"))).isFalse();
    assertThat(env.catalog().tableExists(table)).isTrue();
    assertNothingWritten(readOnly, 0);
    assertNothingWritten(table, 1);
    assertThat(rejects(RejectReason.PERMISSION_DENIED) - before).isGreaterThanOrEqualTo(4);
  }

  @Test
  void expiredOrForeignScopedTokenIsRefused() {
    TableScope expired = new TableScope("hourly/run-0", Instant.now().minusSeconds(1), Set.of(),
        Set.of(table));
    ScopedTokens foreign = new ScopedTokens("another-key-that-is-32-chars-long!!", Clock.systemUTC());
    TableScope valid = new TableScope("hourly/run-0", Instant.now().plusSeconds(60), Set.of(),
        Set.of(table));
    for (String token : List.of(SCOPED.mint(expired), foreign.mint(valid))) {
      try (VerglasClient scoped = VerglasClient.builder().uri(server.location()).token(token)
          .allocator(client.allocator()).build()) {
        assertActionFails(() -> writeOneRow(scoped, table), FlightStatusCode.UNAUTHENTICATED,
            "Invalid scoped token: ");
      }
    }
    assertNothingWritten(table, 0);
  }

  @Test
  void missingOrWrongToken() throws Exception {
    long before = rejects(RejectReason.UNAUTHENTICATED);
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
      assertThatThrownBy(() -> wrong.tableSchema(table)).isInstanceOfSatisfying(
          VerglasException.class, e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
      assertThatThrownBy(() -> writeOneRow(wrong, table)).isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
      assertThatThrownBy(() -> writeOneRow(anonymous, table)).isInstanceOfSatisfying(
          VerglasException.class, e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
    assertThat(env.catalog().tableExists(TestTables.id("bad", "sneaky"))).isFalse();
    assertNothingWritten(table, 0);
    assertThat(rejects(RejectReason.UNAUTHENTICATED) - before).isGreaterThanOrEqualTo(5);
  }

  @Test
  void badTableActions() {
    Schema nested = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "attributes", Types.MapType.ofOptional(3, 4,
            Types.StringType.get(), Types.DoubleType.get())));
    assertActionFails(() -> client.createTable(new CreateTableRequest(List.of("bad"), "nested",
            nested, List.of("id"), null, Map.of())),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot create table bad.nested: Column type "
            + "map<string, double> is not supported for ingest yet");
    assertActionFails(() -> client.createTable(new CreateTableRequest(List.of("bad"), tableName,
            TYPED, List.of("id"), null, Map.of())),
        FlightStatusCode.ALREADY_EXISTS, "Cannot create table bad.badtableactions: it already exists");
    assertActionFails(() -> client.createTable(new CreateTableRequest(List.of("bad"), "badkey",
            TestTables.EVENTS_SCHEMA, List.of("nope"), null, Map.of())),
        FlightStatusCode.INVALID_ARGUMENT, "Invalid primary key: no top-level column 'nope'");
    assertActionFails(() -> client.createTable(new CreateTableRequest(List.of("bad"), "v1",
            TestTables.EVENTS_SCHEMA, List.of("id"), null, Map.of("format-version", "1"))),
        FlightStatusCode.INVALID_ARGUMENT, "format-version '1' is not supported");
    assertActionFails(() -> client.addColumn(table, "name", Types.StringType.get()),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot alter table bad.badtableactions: column "
            + "'name' already exists");
    assertActionFails(() -> client.addColumn(table, "_op", Types.StringType.get()),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot alter table bad.badtableactions: column name "
            + "'_op' is reserved");
    assertActionFails(() -> client.addColumn(table, "ns", Types.TimestampNanoType.withoutZone()),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot alter table bad.badtableactions: Column type "
            + "timestamp_ns is not supported for ingest yet");
    assertActionFails(() -> client.addColumn(TestTables.id("bad", "nope"), "x",
            Types.StringType.get()),
        FlightStatusCode.NOT_FOUND, "Table does not exist: bad.nope");
    assertActionFails(() -> client.dropTable(TestTables.id("bad", "nope"), false),
        FlightStatusCode.NOT_FOUND, "Table does not exist: bad.nope");
    env.catalog().createTable(TestTables.id("bad", "foreign2"), TestTables.EVENTS_SCHEMA);
    assertActionFails(() -> client.dropTable(TestTables.id("bad", "foreign2"), false),
        FlightStatusCode.INVALID_ARGUMENT, "Cannot drop table bad.foreign2: it is not managed by "
            + "Verglas");
    assertThat(env.catalog().tableExists(TestTables.id("bad", "nested"))).isFalse();
    assertThat(env.catalog().tableExists(TestTables.id("bad", "badkey"))).isFalse();
    assertThat(env.catalog().tableExists(TestTables.id("bad", "foreign2"))).isTrue();
    assertThat(env.catalog().loadTable(table).schema().sameSchema(
        env.catalog().loadTable(table).schemas().get(0))).as("schema untouched").isTrue();
    assertNothingWritten(table, 0);
  }

  @Test
  void rawFlightCallsThatAreNotOffered() throws Exception {
    try (FlightClient raw = rawClient()) {
      assertFlightError(() -> raw.doAction(new Action("create-table",
              "{not json".getBytes(StandardCharsets.UTF_8)), auth()).next(),
          FlightStatusCode.INVALID_ARGUMENT, "Cannot parse create-table request");
      assertFlightError(() -> raw.doAction(new Action("alter-table",
              "{\"namespace\":[\"bad\"]}".getBytes(StandardCharsets.UTF_8)), auth()).next(),
          FlightStatusCode.INVALID_ARGUMENT, "Cannot parse alter-table request: missing string name");
      assertFlightError(() -> raw.doAction(new Action("alter-table", ("{\"namespace\":[\"bad\"],"
              + "\"name\":\"t\",\"addColumns\":[{\"name\":\"m\",\"type\":\"map<string, int>\"}]}")
              .getBytes(StandardCharsets.UTF_8)), auth()).next(),
          FlightStatusCode.INVALID_ARGUMENT, "Cannot parse alter-table request: column 'm' has "
              + "unknown type 'map<string, int>' (use an Iceberg primitive type like long, string, "
              + "decimal(12, 2), timestamptz)");
      assertFlightError(() -> raw.doAction(new Action("truncate-table", new byte[0]), auth()).next(),
          FlightStatusCode.UNIMPLEMENTED, "Unknown action 'truncate-table' (supported: "
              + "create-table, alter-table, drop-table, health, metrics)");
      assertFlightError(() -> raw.getStream(new Ticket(new byte[] {1}), auth()).next(),
          FlightStatusCode.UNIMPLEMENTED, "DoGet is not supported");
      assertThat(raw.listActions(auth())).extracting(a -> a.getType())
          .containsExactly("create-table", "alter-table", "drop-table", "health", "metrics");
    }
    assertNothingWritten(table, 0);
  }

  @Test
  void deletesNeedOnlyTheirKey() throws Exception {
    try (RowBatchBuilder rows = client.rowBatchBuilder(table);
        TableWriter writer = client.openWriter(table)) {
      rows.delete(Map.of("id", 1L));
      try (VectorSchemaRoot batch = rows.build()) {
        assertThat(writer.write(batch).get(10, java.util.concurrent.TimeUnit.SECONDS).rows())
            .isEqualTo(1);
      }
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Writes one valid row through its own stream and waits for the ack. */
  private void writeOneRow(VerglasClient writerClient, TableIdentifier target) {
    try (TableWriter writer = writerClient.openWriter(target);
        VectorSchemaRoot batch = vectors.root(vectors.longs("id", 1L), vectors.strings("name", "a"))) {
      writer.write(batch);
      writer.flush();
    }
  }

  /** A stream whose columns do not fit: rejected before its first batch. */
  private void assertStreamRejected(Function<TestVectors, VectorSchemaRoot> bad, String message,
      RejectReason reason) {
    assertStreamRejectedAtFirstBatch(bad, message, reason);
  }

  private void assertStreamRejectedAtFirstBatch(Function<TestVectors, VectorSchemaRoot> bad,
      String message, RejectReason reason) {
    long before = rejects(reason);
    VectorSchemaRoot batch = bad.apply(vectors);
    assertThatThrownBy(() -> {
      try (TableWriter writer = client.openWriter(table)) {
        writer.write(batch);
        writer.flush();
      }
    }).isInstanceOfSatisfying(VerglasException.class, e -> {
      assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.description()).contains(message);
    });
    batch.close();
    assertNothingWritten(table, 0);
    assertThat(rejects(reason) - before).as("rejects{reason=%s}", reason.label()).isEqualTo(1);
  }

  /** A good batch, then a bad one of the same schema: the first is acknowledged, the second refused. */
  private void assertBatchRejected(Function<TestVectors, VectorSchemaRoot> bad, String message,
      RejectReason reason) {
    long before = rejects(reason);
    VectorSchemaRoot second = bad.apply(vectors);
    List<FieldVector> goodColumns = new ArrayList<>();
    for (Field field : second.getSchema().getFields()) {
      FieldVector vector = field.getFieldType().getType().getTypeID() == ArrowType.ArrowTypeID.Int
          ? vectors.longs(field.getName(), 1_000L, 1_001L) : goodColumn(field);
      goodColumns.add(vector);
    }
    VectorSchemaRoot first = vectors.root(goodColumns.toArray(FieldVector[]::new));
    TableWriter writer = client.openWriter(table);
    CompletableFuture<PutAck> good = writer.write(first);
    CompletableFuture<PutAck> rejected = writer.write(second);
    assertThat(good.join().rows()).isEqualTo(2);
    assertThatThrownBy(rejected::join).cause().isInstanceOfSatisfying(VerglasException.class, e -> {
      assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      if (message != null) {
        assertThat(e.description()).isEqualTo("Cannot write batch 1 to bad." + tableName + ": "
            + message);
      } else {
        assertThat(e.description()).matches("Cannot write batch 1 to bad." + tableName + ": 1 "
            + "problem: batch has \\d+ bytes of Arrow buffers but at most " + MAX_BYTES
            + " are allowed; split it");
      }
    });
    assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
    assertNothingWritten(table, 2);
    assertThat(rejects(reason) - before).as("rejects{reason=%s}", reason.label()).isEqualTo(1);
  }

  /** Two good cells of the field's type (the bad batch's shape decides the columns). */
  private FieldVector goodColumn(Field field) {
    String name = field.getName();
    ArrowType type = field.getType();
    if (type instanceof ArrowType.Utf8) {
      return vectors.strings(name, name.equals("_op") ? "U" : "good", name.equals("_op") ? null : "good");
    } else if (type instanceof ArrowType.Decimal d) {
      return decimal(vectors, name, d.getPrecision(), d.getScale(), BigDecimal.ONE.setScale(d.getScale()),
          BigDecimal.ONE.setScale(d.getScale()));
    } else if (type instanceof ArrowType.Timestamp ts) {
      return timestamp(vectors, name, ts.getUnit(), ts.getTimezone(), 0L, 0L);
    }
    throw new IllegalArgumentException("No good cells for " + field);
  }

  /**
   * Nothing of a rejected input is in the WAL or the table: once the server buffers nothing,
   * the WAL holds exactly the rows acknowledged before it, and the table has no snapshot.
   */
  private void assertNothingWritten(TableIdentifier id, long goodRows) {
    TestEnvironment.awaitDrained(server);
    long rows = 0;
    String name = id.toString();
    for (WalSegment segment : env.laneSegments(STREAM)) {
      if (String.join(".", segment.header().tableName()).equals(name)) {
        rows += segment.header().recordCount();
      }
    }
    assertThat(rows).as("WAL rows of %s", id).isEqualTo(goodRows);
    if (env.catalog().tableExists(id)) {
      Table loaded = env.catalog().loadTable(id);
      assertThat(loaded.currentSnapshot()).as("no snapshot of %s", id).isNull();
    }
  }

  private void assertCounted(RejectReason reason) {
    assertThat(rejects(reason)).as("rejects{reason=%s}", reason.label()).isPositive();
  }

  private static long rejects(RejectReason reason) {
    return server.metrics().snapshot().rejects().get(reason);
  }

  private FlightClient rawClient() {
    return FlightClient.builder(client.allocator(), new Location(server.location())).build();
  }

  private static CredentialCallOption auth() {
    return new CredentialCallOption(new BearerCredentialWriter(TestEnvironment.TOKEN));
  }

  private static void assertActionFails(Runnable call, FlightStatusCode code, String message) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(VerglasException.class, e -> {
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

  // ---- vectors no well-behaved builder makes -----------------------------------------------

  private static Float8Vector floats64(TestVectors v, String name, double value) {
    Float8Vector vector = v.track(new Float8Vector(name, v.allocator()));
    vector.allocateNew(1);
    vector.set(0, value);
    vector.setValueCount(1);
    return vector;
  }

  private static UInt4Vector uint32(TestVectors v, String name, int value) {
    UInt4Vector vector = v.track(new UInt4Vector(name, v.allocator()));
    vector.allocateNew(1);
    vector.set(0, value);
    vector.setValueCount(1);
    return vector;
  }

  private static StructVector struct(TestVectors v, String name) {
    StructVector vector = v.track(StructVector.empty(name, v.allocator()));
    VarCharVector child = vector.addOrGet("x", FieldType.nullable(ArrowType.Utf8.INSTANCE),
        VarCharVector.class);
    vector.allocateNew();
    child.setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
    vector.setIndexDefined(0);
    child.setValueCount(1);
    vector.setValueCount(1);
    return vector;
  }

  /** Unscaled values are written as they are: Arrow does not check them against the precision. */
  private static DecimalVector decimal(TestVectors v, String name, int precision, int scale,
      BigDecimal... values) {
    DecimalVector vector = v.track(new DecimalVector(name, v.allocator(), precision, scale));
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      vector.set(i, values[i].setScale(scale).unscaledValue().longValueExact());
    }
    vector.setValueCount(values.length);
    return vector;
  }

  private static VarCharVector rawStrings(TestVectors v, String name, byte[]... values) {
    VarCharVector vector = v.track(new VarCharVector(name, v.allocator()));
    vector.allocateNew();
    for (int i = 0; i < values.length; i++) {
      vector.setSafe(i, values[i]);
    }
    vector.setValueCount(values.length);
    return vector;
  }

  private static TimeStampVector timestamp(TestVectors v, String name, TimeUnit unit, String zone,
      Long... values) {
    FieldType type = FieldType.nullable(new ArrowType.Timestamp(unit, zone));
    TimeStampVector vector = v.track((TimeStampVector) type.createNewSingleVector(name,
        v.allocator(), null));
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      vector.set(i, values[i]);
    }
    vector.setValueCount(values.length);
    return vector;
  }
}
