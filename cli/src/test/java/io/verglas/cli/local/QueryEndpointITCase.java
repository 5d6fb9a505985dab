package io.verglas.cli.local;

import io.verglas.access.ScopedTokens;
import io.verglas.access.TableScope;
import java.time.Instant;
import java.util.Set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.catalog.Catalogs;
import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.QueryClient;
import io.verglas.sdk.QueryFailedException;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/query} on the local stack's S3 port, on tables the materializer wrote with
 * updates and deletes (deletion vectors): scan, lookup and traverse compared with a model of
 * what was pushed, and the errors a client gets.
 */
class QueryEndpointITCase {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TableIdentifier LINKS = TableIdentifier.of("shop", "links");
  private static final Schema LINK = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "src", Types.LongType.get()),
      Types.NestedField.optional(3, "dst", Types.LongType.get()));

  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().build();

  @Test
  void scanLookupAndTraverseAnswerWhatWasPushedAndBadQueriesTheirError() throws Exception {
    EndpointsFile endpoints = local.stack().endpoints();
    Map<Long, String> model = new TreeMap<>();
    TestingOrders.push(endpoints, 0, 300);
    for (long id = 0; id < 300; id++) {
      model.put(id, "item-" + id);
    }
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    assertThat(TestingOrders.awaitRows(catalog, 300)).isEqualTo(300);
    pushChanges(endpoints, model);   // updates of 0..19, deletes of 20..29
    assertThat(TestingOrders.awaitRows(catalog, 290)).isEqualTo(290);
    pushLinks(endpoints);
    awaitLinks(endpoints);

    JsonNode all = query(endpoints, "{\"kind\":\"scan\",\"table\":\"shop.orders\",\"select\":[\"id\",\"item\"]}");
    assertThat(all.get("snapshot").asLong()).isEqualTo(
        catalog.loadTable(TestingOrders.ORDERS).currentSnapshot().snapshotId());
    Map<Long, String> scanned = new TreeMap<>();
    all.get("rows").forEach(r -> scanned.put(r.get("id").asLong(), r.get("item").asText()));
    assertThat(scanned).isEqualTo(model);

    JsonNode found = query(endpoints, "{\"kind\":\"lookup\",\"table\":\"shop.orders\",\"keys\":[5,25,250]}");
    Map<Long, String> looked = new TreeMap<>();
    found.get("rows").forEach(r -> looked.put(r.get("id").asLong(), r.get("item").asText()));
    assertThat(looked).isEqualTo(Map.of(5L, "item-5-v2", 250L, "item-250"));
    assertThat(arrowLookup(endpoints, "{\"kind\":\"lookup\",\"table\":\"shop.orders\",\"keys\":[5,25,250]}",
        found.get("snapshot").asText())).isEqualTo(looked);

    JsonNode filtered = query(endpoints, "{\"kind\":\"scan\",\"table\":\"shop.orders\",\"filter\":"
        + "{\"type\":\"lt\",\"term\":\"id\",\"value\":25},\"limit\":100}");
    assertThat(filtered.get("rows")).hasSize(20);
    filtered.get("rows").forEach(r -> assertThat(r.get("item").asText()).endsWith("-v2"));

    JsonNode graph = query(endpoints, "{\"kind\":\"traverse\",\"table\":\"shop.links\",\"seeds\":[0],\"depth\":3}");
    List<String> vertices = new ArrayList<>();
    graph.get("vertices").forEach(v -> vertices.add(v.get("id").asLong() + "@" + v.get("depth").asInt()));
    // links 0->1, 1->2, 2->3, 3->4 and 0->9 (which a later push deleted)
    assertThat(vertices).containsExactlyInAnyOrder("0@0", "1@1", "2@2", "3@3");

    assertError(endpoints, "{\"kind\":\"scan\",\"table\":\"shop.nope\"}", 404, "Cannot find table shop.nope");
    assertError(endpoints, "{\"kind\":\"scan\",\"table\":\"shop.orders\",\"select\":[\"price\"]}", 400,
        "unknown column price");
    HttpResponse<String> anonymous = post(endpoints, "{}", null);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertScopedTokensQueryOnlyTheirTables(endpoints, local.stack().scopedTokens());
    assertTheSdkVerbsAgree(endpoints, all.get("snapshot").asLong());
    assertCommitsGetTheirVectorIndex(endpoints);
  }

  /**
   * A table declaring a vector column: its commit's catalog event makes the stack build the
   * snapshot's index, after which vector queries go through it and find the nearest row.
   */
  private static void assertCommitsGetTheirVectorIndex(EndpointsFile endpoints) throws Exception {
    TableIdentifier docs = TableIdentifier.of("shop", "docs");
    Schema schema = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "v", Types.FixedType.ofLength(12)));
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri()).token(endpoints.flightToken()).build()) {
      client.createTable(new CreateTableRequest(List.of("shop"), "docs", schema, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of("verglas.vector.column", "v", "verglas.vector.dimension", "3")));
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      rows.add(new LinkedHashMap<>(Map.of("id", id, "v", vector(id, id * 0.5f, 1))));
    }
    write(endpoints, docs, rows);
    JsonNode answer = awaitIndexedAnswer(endpoints,
        "{\"kind\":\"vector\",\"table\":\"shop.docs\",\"vector\":[7,3.5,1],\"k\":3}");
    assertThat(answer.at("/rows/0/id").asLong()).isEqualTo(7);
  }

  /** The vector query's answer once it comes from the index (asserted within two minutes). */
  static JsonNode awaitIndexedAnswer(EndpointsFile endpoints, String query) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    JsonNode answer = null;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> response = post(endpoints, query, endpoints.catalogToken());
      if (response.statusCode() == 200) {
        answer = JSON.readTree(response.body());
        if ("index".equals(answer.path("method").asText())) {
          break;
        }
      }
      Thread.sleep(500);
    }
    assertThat(answer).as("a vector answer").isNotNull();
    assertThat(answer.path("method").asText()).as("built from the commit's event: %s", answer).isEqualTo("index");
    return answer;
  }

  private static byte[] vector(float x, float y, float z) {
    return java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putFloat(x).putFloat(y).putFloat(z).array();
  }

  /** The same primitives as the Java SDK's verbs. */
  private static void assertTheSdkVerbsAgree(EndpointsFile endpoints, long snapshot) {
    QueryClient sdk = QueryClient.of(endpoints.s3Endpoint(), endpoints.catalogToken());
    QueryAnswer scan = sdk.scan(TestingOrders.ORDERS).select("id", "item")
        .where(Expressions.lessThan("id", 25L)).atSnapshot(snapshot).run();
    assertThat(scan.snapshotId()).isEqualTo(snapshot);
    assertThat(scan.rows()).hasSize(20).allSatisfy(r -> assertThat((String) r.get("item")).endsWith("-v2"));
    assertThat(sdk.lookup(TestingOrders.ORDERS, List.of(5L, 25L)).rows())
        .extracting(r -> r.get("item")).containsExactly("item-5-v2");
    assertThat(sdk.traverse(LINKS, List.of(0L), 3, 10).vertices()).hasSize(4);
    assertThatThrownBy(() -> sdk.scan(TableIdentifier.of("shop", "nope")).run())
        .isInstanceOfSatisfying(QueryFailedException.class, e -> assertThat(e.status()).isEqualTo(404))
        .hasMessageContaining("Cannot find table shop.nope");
  }

  private static void pushChanges(EndpointsFile endpoints, Map<Long, String> model) throws Exception {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = 0; id < 20; id++) {
      rows.add(new LinkedHashMap<>(Map.of("id", id, "item", "item-" + id + "-v2")));
      model.put(id, "item-" + id + "-v2");
    }
    for (long id = 20; id < 30; id++) {
      rows.add(new LinkedHashMap<>(Map.of("id", id, "_op", "D")));
      model.remove(id);
    }
    write(endpoints, TestingOrders.ORDERS, rows);
  }

  private static void pushLinks(EndpointsFile endpoints) throws Exception {
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri()).token(endpoints.flightToken()).build()) {
      client.createTable(new CreateTableRequest(List.of("shop"), "links", LINK, List.of("id"),
          PartitionSpec.unpartitioned(), Map.of()));
    }
    List<Map<String, Object>> links = new ArrayList<>();
    long[][] edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 9}};
    for (int i = 0; i < edges.length; i++) {
      links.add(new LinkedHashMap<>(Map.of("id", (long) i, "src", edges[i][0], "dst", edges[i][1])));
    }
    write(endpoints, LINKS, links);
    write(endpoints, LINKS, List.of(new LinkedHashMap<>(Map.of("id", 4L, "_op", "D"))));
  }

  private static void awaitLinks(EndpointsFile endpoints) throws Exception {
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      if (catalog.tableExists(LINKS) && catalog.loadTable(LINKS).currentSnapshot() != null
          && query(endpoints, "{\"kind\":\"scan\",\"table\":\"shop.links\"}").get("rows").size() == 4) {
        return;
      }
      Thread.sleep(300);
    }
    throw new AssertionError("The links were not committed within 120 s");
  }

  static void write(EndpointsFile endpoints, TableIdentifier table, List<Map<String, Object>> rows)
      throws Exception {
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri()).token(endpoints.flightToken()).build();
        TableWriter writer = client.openWriter(table);
        RowBatchBuilder builder = client.rowBatchBuilder(table)) {
      rows.forEach(builder::add);
      try (VectorSchemaRoot batch = builder.build()) {
        writer.write(batch).join();
      }
    }
  }

  /** A scoped token queries the tables it may read and no other; an expired one nothing. */
  private static void assertScopedTokensQueryOnlyTheirTables(EndpointsFile endpoints,
      ScopedTokens tokens) throws Exception {
    String token = tokens.mint(new TableScope("reader/run-1", Instant.now().plusSeconds(60),
        Set.of(TestingOrders.ORDERS), Set.of()));
    HttpResponse<String> granted = post(endpoints,
        "{\"kind\":\"lookup\",\"table\":\"shop.orders\",\"keys\":[5]}", token);
    assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
    assertThat(JSON.readTree(granted.body()).get("rows")).hasSize(1);
    for (String json : List.of("{\"kind\":\"scan\",\"table\":\"shop.links\"}",
        "{\"kind\":\"traverse\",\"table\":\"shop.links\",\"seeds\":[0],\"depth\":1}",
        "{\"kind\":\"snapshot\",\"table\":\"shop.links\"}")) {
      HttpResponse<String> refused = post(endpoints, json, token);
      assertThat(refused.statusCode()).as(json).isEqualTo(403);
      assertThat(JSON.readTree(refused.body()).at("/error/message").asText()).isEqualTo(
          "Cannot read table shop.links: token for reader/run-1 grants reads only on [shop.orders]");
    }
    String expired = tokens.mint(new TableScope("reader/run-0", Instant.now().minusSeconds(1),
        Set.of(TestingOrders.ORDERS), Set.of()));
    HttpResponse<String> late = post(endpoints,
        "{\"kind\":\"lookup\",\"table\":\"shop.orders\",\"keys\":[5]}", expired);
    assertThat(late.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(late.body()).at("/error/message").asText())
        .startsWith("Cannot run a query: Invalid scoped token: token for reader/run-0 expired at ");

    // the admin port: the events of its tables, and nothing else
    HttpResponse<String> events = adminGet(endpoints.eventsUri() + "?from=1", token);
    assertThat(events.statusCode()).as(events.body()).isEqualTo(200);
    Set<String> subjects = new java.util.TreeSet<>();
    for (String line : events.body().split("\n")) {
      if (!line.isBlank()) {
        subjects.add(JSON.readTree(line).get("subject").asText());
      }
    }
    assertThat(subjects).containsExactly("shop.orders");
    assertThat(adminGet(endpoints.adminUri() + "/stats", token).statusCode()).isEqualTo(403);
  }

  private static HttpResponse<String> adminGet(String uri, String token) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(uri))
        .header("Authorization", "Bearer " + token).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode query(EndpointsFile endpoints, String json) throws Exception {
    HttpResponse<String> response = post(endpoints, json, endpoints.catalogToken());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  /** The lookup answered as an Arrow stream: its id → item rows, after checking the snapshot it names. */
  private static Map<Long, String> arrowLookup(EndpointsFile endpoints, String json, String snapshot) throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (org.apache.arrow.memory.BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator();
        org.apache.arrow.vector.ipc.ArrowStreamReader reader = new org.apache.arrow.vector.ipc.ArrowStreamReader(
            new java.io.ByteArrayInputStream(arrowAnswer(endpoints, json)), allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(root.getSchema().getCustomMetadata()).containsEntry("verglas.snapshot", snapshot);
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++) {
          rows.put(((Number) root.getVector("id").getObject(r)).longValue(), root.getVector("item").getObject(r).toString());
        }
      }
    }
    return rows;
  }

  /** The query's answer as an Arrow stream (after checking its status and media type). */
  static byte[] arrowAnswer(EndpointsFile endpoints, String json) throws Exception {
    HttpResponse<byte[]> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(endpoints.s3Endpoint() + "/v1/query"))
            .POST(HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json")
            .header("Accept", "application/vnd.apache.arrow.stream")
            .header("Authorization", "Bearer " + endpoints.catalogToken()).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).as(() -> new String(response.body())).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/vnd.apache.arrow.stream");
    return response.body();
  }

  private static void assertError(EndpointsFile endpoints, String json, int status, String message) throws Exception {
    HttpResponse<String> response = post(endpoints, json, endpoints.catalogToken());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(JSON.readTree(response.body()).at("/error/message").asText()).contains(message);
  }

  static HttpResponse<String> post(EndpointsFile endpoints, String json, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(endpoints.s3Endpoint() + "/v1/query"))
        .POST(HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
