package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.CreateTableRequestParser;
import io.verglas.wal.WalSegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Table identifiers through the real Flight server: each identifier that breaks a rule is
 * answered INVALID_ARGUMENT naming the rule and the level, before anything is created (no
 * namespace, no object in the warehouse); a failed create drops the namespaces it created; and
 * names the rules allow (a dot in the name, any Unicode) are created and written to the WAL
 * under their levels.
 */
@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS,
    threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TableIdentifierITCase {
  @TempDir
  static Path dir;
  private static TestEnvironment env;
  private static IngestServer server;
  private static VerglasClient client;

  @BeforeAll
  static void start() throws Exception {
    env = new TestEnvironment(dir);
    server = env.server("identifiers").build().start();
    client = VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN).build();
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    env.close();
  }

  static Stream<Arguments> badIdentifiers() {
    return Stream.of(
        Arguments.of(List.of("ns"), "a/b", "slash", "name 'a/b' contains '/'"),
        Arguments.of(List.of("ns", "a/b"), "t", "slash", "namespace level 2 'a/b'"),
        Arguments.of(List.of("ns"), "", "empty", "name '' is empty"),
        Arguments.of(List.of("ns"), "   ", "empty", "name '   ' is only white space"),
        Arguments.of(List.of("fresh", ""), "t", "empty", "namespace level 2 '' is empty"),
        Arguments.of(List.of("ns"), "line\nbreak", "control-character",
            "name 'line\\u000Abreak' contains U+000A"),
        Arguments.of(List.of("ns"), "tab\there", "control-character", "contains U+0009"),
        Arguments.of(List.of("ns"), "del\u007F", "control-character", "contains U+007F"),
        Arguments.of(List.of("ns"), "c1\u0085", "control-character", "contains U+0085"),
        Arguments.of(List.of("fresh\r"), "t", "control-character", "namespace level 1"),
        Arguments.of(List.of("ns"), "nul\0", "nul", "name 'nul\\u0000' contains NUL"),
        Arguments.of(List.of("ns"), ".", "dot-segment", "name '.' is a dot segment"),
        Arguments.of(List.of("ns"), "..", "dot-segment", "name '..' is a dot segment"),
        Arguments.of(List.of("fresh", ".."), "t", "dot-segment", "namespace level 2 '..'"),
        Arguments.of(List.of("fresh.er"), "t", "dot-in-namespace",
            "namespace level 1 'fresh.er' contains '.'"),
        Arguments.of(List.of("ns"), "x".repeat(256), "too-long", "has 256 bytes"),
        Arguments.of(List.of("ns"), LONE_SURROGATE, "unpaired-surrogate", "U+D800"),
        Arguments.of(List.of(), "t", "no-namespace", "it has no namespace"),
        Arguments.of(Collections.nCopies(17, "n"), "t", "too-many-levels", "17 namespace levels"));
  }

  @ParameterizedTest
  @MethodSource("badIdentifiers")
  void aBadIdentifierIsRefusedNamingTheRuleAndNothingIsCreated(List<String> namespace,
      String name, String rule, String detail) throws Exception {
    List<Namespace> namespacesBefore = allNamespaces(env.catalog());
    List<String> objectsBefore = warehouseObjects();

    assertThatThrownBy(() -> createTable(namespace, name))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
          assertThat(e.status().description()).startsWith("Cannot create table '")
              .contains(detail).contains("(rule " + rule + ": ");
        });

    assertThat(allNamespaces(env.catalog())).isEqualTo(namespacesBefore);
    assertThat(warehouseObjects()).isEqualTo(objectsBefore);
  }

  @Test
  void aSlashNeverAliasesTheLocationOfANestedTable() {
    client.createTable(TestTables.events("ns", "plain"));
    assertThatThrownBy(() -> client.createTable(TestTables.events("ns", "a/b")))
        .isInstanceOfSatisfying(VerglasException.class, e ->
            assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
    assertThat(env.catalog().tableExists(TableIdentifier.of("ns", "a/b"))).isFalse();
    assertThat(((SupportsNamespaces) env.catalog()).namespaceExists(Namespace.of("ns", "a")))
        .isFalse();
  }

  @Test
  void namesWithADotOrAnyUnicodeAreCreatedAndWrittenUnderTheirLevels() throws Exception {
    for (CreateTableRequest request : List.of(TestTables.events("demo", "orders.v2"),
        TestTables.events("vente", "événements 数据 \uD83D\uDE00"))) {
      TableIdentifier id = request.identifier();
      client.createTable(request);
      assertThat(env.catalog().loadTable(id).location()).endsWith("/" + request.name());
      assertThat(write(id).rows()).isEqualTo(1);
      List<String> levels = new ArrayList<>(request.namespace());
      levels.add(request.name());
      assertThat(env.laneSegments("identifiers")).extracting(s -> s.header().tableName())
          .contains(levels);
    }
    assertThat(env.catalog().tableExists(TableIdentifier.of(Namespace.of("demo", "orders"), "v2")))
        .isFalse();
  }

  @Test
  void aCreateThatFailsInStorageLeavesNoNamespaceBehind() throws Exception {
    // A warehouse that is a file: the namespace is made in the catalog, the table's metadata
    // cannot be written.
    Path notADirectory = Files.writeString(dir.resolve("warehouse-file"), "not a directory");
    Catalog broken = io.verglas.catalog.Catalogs.load("broken", Map.of("type", "jdbc",
        "uri", "jdbc:sqlite:" + dir.resolve("broken.db"), "jdbc.schema-version", "V1",
        "warehouse", notADirectory.toUri().toString()));
    try (IngestServer failing = IngestServer.builder().catalog(broken)
            .objectStore(env.endpoint()).streamId("broken").token(TestEnvironment.TOKEN)
            .flushInterval(Duration.ofMillis(20)).build().start();
        VerglasClient writer = VerglasClient.builder().uri(failing.location())
            .token(TestEnvironment.TOKEN).build()) {
      ((SupportsNamespaces) broken).createNamespace(Namespace.of("kept"));
      for (List<String> namespace : List.of(List.of("new", "deeper"), List.of("kept", "child"))) {
        assertThatThrownBy(() -> writer.createTable(new CreateTableRequest(namespace, "t",
                TestTables.EVENTS_SCHEMA, List.of("id"), null, Map.of())))
            .isInstanceOf(VerglasException.class);
      }
      assertThat(allNamespaces(broken)).containsExactly(Namespace.of("kept"));
    } finally {
      ((java.io.Closeable) broken).close();
    }
  }

  /** Sends the request as JSON in a raw action, so any string reaches the server as it is. */
  private static void createTable(List<String> namespace, String name) throws Exception {
    String json = CreateTableRequestParser.toJson(new CreateTableRequest(namespace,
        name.equals(LONE_SURROGATE) ? "placeholder" : name, TestTables.EVENTS_SCHEMA,
        List.of("id"), null, Map.of()));
    if (name.equals(LONE_SURROGATE)) {
      json = json.replace("\"placeholder\"", "\"lone\\ud800\""); // JSON writers refuse to
    }
    try (FlightClient raw = FlightClient.builder(client.allocator(),
        new Location(server.location())).build()) {
      raw.doAction(new Action("create-table", json.getBytes(StandardCharsets.UTF_8)),
          new CredentialCallOption(new BearerCredentialWriter(TestEnvironment.TOKEN))).next();
    }
  }

  /** Stands for a name with an unpaired surrogate, which only hand-written JSON can carry. */
  private static final String LONE_SURROGATE = "<lone surrogate>";

  private static PutAck write(TableIdentifier table) throws Exception {
    try (RowBatchBuilder rows = client.rowBatchBuilder(table);
        TableWriter out = client.openWriter(table)) {
      rows.add(Map.of("id", 1L, "name", "a"));
      try (VectorSchemaRoot batch = rows.build()) {
        return out.write(batch).get();
      }
    }
  }

  private static List<Namespace> allNamespaces(Catalog catalog) {
    SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
    List<Namespace> all = new ArrayList<>();
    Deque<Namespace> pending = new ArrayDeque<>(namespaces.listNamespaces(Namespace.empty()));
    while (!pending.isEmpty()) {
      Namespace namespace = pending.poll();
      all.add(namespace);
      pending.addAll(namespaces.listNamespaces(namespace));
    }
    all.sort(java.util.Comparator.comparing(Namespace::toString));
    return all;
  }

  private static List<String> warehouseObjects() {
    return env.s3().listObjectsV2Paginator(ListObjectsV2Request.builder()
            .bucket(TestEnvironment.BUCKET).prefix("warehouse/").build())
        .contents().stream().map(S3Object::key).toList();
  }
}
