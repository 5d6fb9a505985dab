package io.verglas.ingest.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.Catalogs;
import io.verglas.ingest.table.TableCache;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.CreateTableRequestParser;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Many create-table requests at once on Iceberg's JDBC catalog on the machine's PostgreSQL
 * (127.0.0.1:5432, database {@code test}, a schema of its own; {@code -Dverglas.test.pg-url}
 * overrides), started together behind a barrier, in namespaces that do not exist yet: distinct
 * names all succeed, of identical names exactly one does and every other fails as "already
 * exists", and the catalog holds exactly the tables that succeeded. The answer is the table as
 * a load from the catalog finds it.
 */
class ConcurrentCreateTableTest {
  private static final String SERVER =
      System.getProperty("verglas.test.pg-url", "jdbc:postgresql://127.0.0.1:5432/test")
          + "?user=postgres";
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final int CALLS = 16;

  private final String schema = "vg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private Catalog catalog;
  private CreateTableAction action;
  private ExecutorService pool;

  @BeforeEach
  void setUp() throws Exception {
    sql("CREATE SCHEMA " + schema);
    Map<String, String> properties = new java.util.HashMap<>(Catalogs.jdbc(
        SERVER + "&currentSchema=" + schema, "memory://warehouse/" + schema,
        Map.of("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO")));
    catalog = Catalogs.load("concurrent", properties);
    action = new CreateTableAction(catalog, new TableCache(catalog, Duration.ofSeconds(10)));
    pool = Executors.newFixedThreadPool(CALLS);
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.shutdownNow();
    ((Closeable) catalog).close();
    sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  @Test
  void distinctNamesInANewNamespaceAllSucceed() throws Exception {
    List<String> outcomes = createAtOnce(List.of("fresh", "sub"), i -> "t" + i);

    assertThat(outcomes).containsOnly("created");
    assertThat(catalog.listTables(Namespace.of("fresh", "sub"))).hasSize(CALLS);
    assertThat(((SupportsNamespaces) catalog).namespaceExists(Namespace.of("fresh"))).isTrue();
  }

  @Test
  void ofIdenticalNamesExactlyOneSucceedsAndTheOthersAlreadyExist() throws Exception {
    for (int round = 0; round < 3; round++) {
      String namespace = "same" + round;
      List<String> outcomes = createAtOnce(List.of(namespace), i -> "t");

      assertThat(outcomes).as("round " + round).filteredOn("created"::equals).hasSize(1);
      assertThat(outcomes).as("round " + round).filteredOn(o -> !o.equals("created"))
          .hasSize(CALLS - 1)
          .allMatch(o -> o.equals("exists: Cannot create table " + namespace + ".t: it already exists"));
      assertThat(catalog.listTables(Namespace.of(namespace)))
          .containsExactly(TableIdentifier.of(namespace, "t"));
    }
  }

  @Test
  void halfDistinctHalfIdenticalNamesSucceedOrFailPrecisely() throws Exception {
    List<String> outcomes = createAtOnce(List.of("mixed"), i -> i % 2 == 0 ? "d" + i : "same");

    assertThat(outcomes).filteredOn("created"::equals).hasSize(CALLS / 2 + 1);
    assertThat(outcomes).filteredOn(o -> o.startsWith("exists:")).hasSize(CALLS / 2 - 1);
    assertThat(catalog.listTables(Namespace.of("mixed"))).hasSize(CALLS / 2 + 1);
  }

  @Test
  void theAnswerIsTheTableAsTheCatalogLoadsIt() {
    byte[] answer = action.run(CreateTableRequestParser.toJson(new CreateTableRequest(
        List.of("answer"), "t", SCHEMA, List.of("id"), PartitionSpec.unpartitioned(),
        Map.of("format-version", "2"))).getBytes(StandardCharsets.UTF_8));

    TableIdentifier id = TableIdentifier.of("answer", "t");
    byte[] loaded = TableJson.toBytes(new TableCache(catalog, Duration.ofSeconds(10)).reload(id));
    assertThat(new String(answer, StandardCharsets.UTF_8))
        .isEqualTo(new String(loaded, StandardCharsets.UTF_8))
        .contains("\"formatVersion\":2", "\"primaryKey\":[\"id\"]");
  }

  /** {@value #CALLS} creates released together; each call's outcome, in call order. */
  private List<String> createAtOnce(List<String> namespace,
      java.util.function.IntFunction<String> name) throws Exception {
    CyclicBarrier start = new CyclicBarrier(CALLS);
    List<Future<String>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      byte[] body = CreateTableRequestParser.toJson(new CreateTableRequest(namespace,
          name.apply(i), SCHEMA, List.of("id"), PartitionSpec.unpartitioned(), Map.of()))
          .getBytes(StandardCharsets.UTF_8);
      calls.add(pool.submit(() -> {
        start.await(30, TimeUnit.SECONDS);
        try {
          action.run(body);
          return "created";
        } catch (AlreadyExistsException e) {
          return "exists: " + e.getMessage();
        }
      }));
    }
    List<String> outcomes = new ArrayList<>();
    for (Future<String> call : calls) {
      outcomes.add(call.get(60, TimeUnit.SECONDS)); // any other failure fails the test here
    }
    return outcomes;
  }

  private static void sql(String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(SERVER); Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
