package io.verglas.cache.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cache.TestingCacheNode;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache node's /catalog with Iceberg's own REST client, over a JDBC catalog on SQLite
 * whose FileIO goes through the same node; the client's FileIO writes data through the node's
 * S3 endpoint, as the config response tells it to.
 */
class RestCatalogITCase {
  private static final String TOKEN = "catalog-test-token";
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final Namespace NS = Namespace.of("demo");
  private static final TableIdentifier EVENTS = TableIdentifier.of(NS, "events");

  @TempDir
  Path dir;

  private final AtomicReference<Catalog> backing = new AtomicReference<>();
  private TestingCacheNode t;
  private Catalog jdbc;
  private TestingCountingCatalog counting;
  private RESTCatalog client;

  @BeforeEach
  void start() {
    t = new TestingCacheNode(dir.resolve("origin"), o -> o,
        b -> b.catalog(RestCatalogConfig.builder(backing::get, TOKEN).build()));
    jdbc = jdbcCatalog();
    counting = new TestingCountingCatalog(jdbc);
    backing.set(counting);
    client = restClient(Map.of("token", TOKEN));
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    t.close();
    ((AutoCloseable) jdbc).close();
  }

  private Catalog jdbcCatalog() {
    ObjectStoreEndpoint s3 = new ObjectStoreEndpoint(t.node.endpoint(), "us-east-1",
        TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY, TestingCacheNode.BUCKET);
    return Catalogs.load("jdbc", Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        s3.warehouse(), s3.s3FileIoProperties()));
  }

  private RESTCatalog restClient(Map<String, String> extra) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("uri", t.node.catalogUri().toString());
    props.put("s3.access-key-id", TestingCacheNode.ACCESS_KEY);
    props.put("s3.secret-access-key", TestingCacheNode.SECRET_KEY);
    props.put(Catalogs.HTTP_CLIENT_TYPE, "urlconnection");
    props.putAll(extra);
    RESTCatalog rest = new RESTCatalog();
    rest.initialize("rest", props);
    return rest;
  }

  @Test
  void icebergRestClientManagesNamespacesAndTablesThroughTheBackingCatalog() throws Exception {
    // (Iceberg's client refuses immutable maps: it asks them whether they hold a null key.)
    client.createNamespace(NS, new HashMap<>(Map.of("owner", "ops")));
    assertThat(client.listNamespaces()).contains(NS);
    assertThat(client.namespaceExists(NS)).isTrue();
    client.setProperties(NS, new HashMap<>(Map.of("tier", "gold")));
    assertThat(client.loadNamespaceMetadata(NS)).containsEntry("owner", "ops").containsEntry("tier", "gold");

    Table table = client.createTable(EVENTS, SCHEMA, PartitionSpec.unpartitioned());
    assertThat(client.listTables(NS)).containsExactly(EVENTS);
    assertThat(table.io().properties()).containsEntry("s3.endpoint", t.node.endpoint().toString());

    DataFile file = writeDataFile(table, "part-0.parquet");
    table.newAppend().appendFile(file).commit();
    long snapshot = table.currentSnapshot().snapshotId();

    // The commit is in the backing database: a direct JDBC client sees it.
    try (AutoCloseable direct = (AutoCloseable) jdbcCatalog()) {
      Table seen = ((Catalog) direct).loadTable(EVENTS);
      assertThat(seen.currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(seen.currentSnapshot().addedDataFiles(seen.io()))
          .extracting(DataFile::location).containsExactly(file.location());
    }
    assertThat(client.loadTable(EVENTS).currentSnapshot().snapshotId()).isEqualTo(snapshot);

    TableIdentifier renamed = TableIdentifier.of(NS, "events_v2");
    client.renameTable(EVENTS, renamed);
    assertThat(client.tableExists(EVENTS)).isFalse();
    assertThat(client.tableExists(renamed)).isTrue();
    assertThat(jdbc.tableExists(renamed)).isTrue();

    assertThat(client.dropTable(renamed, true)).isTrue();
    assertThat(jdbc.tableExists(renamed)).isFalse();
    String key = URI.create(file.location()).getPath().substring(1);
    assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(TestingCacheNode.BUCKET).key(key)))
        .isInstanceOf(NoSuchKeyException.class);
    assertThat(client.dropNamespace(NS)).isTrue();
    assertThat(client.namespaceExists(NS)).isFalse();
  }

  @Test
  void stagedCreateCommitsThroughTheBackingCatalog() {
    client.createNamespace(NS);
    client.buildTable(EVENTS, SCHEMA).createTransaction().commitTransaction();
    assertThat(jdbc.tableExists(EVENTS)).isTrue();
  }

  @Test
  void failuresComeBackAsIcebergExceptions() {
    assertThatThrownBy(() -> client.loadTable(EVENTS)).isInstanceOf(NoSuchTableException.class);
    assertThatThrownBy(() -> client.loadNamespaceMetadata(NS)).isInstanceOf(NoSuchNamespaceException.class);
    client.createNamespace(NS);
    assertThatThrownBy(() -> client.createNamespace(NS)).isInstanceOf(AlreadyExistsException.class);
    client.createTable(EVENTS, SCHEMA);
    assertThatThrownBy(() -> client.createTable(EVENTS, SCHEMA)).isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(() -> client.dropNamespace(NS)).isInstanceOf(NamespaceNotEmptyException.class);
    assertThat(jdbc.tableExists(EVENTS)).isTrue();
  }

  @Test
  void errorsAreRestErrorResponses() throws Exception {
    HttpResponse<String> missing = get("/v1/namespaces/demo/tables/nope", TOKEN);
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode error = new ObjectMapper().readTree(missing.body()).path("error");
    assertThat(error.path("code").asInt()).isEqualTo(404);
    assertThat(error.path("type").asText()).isEqualTo("NoSuchTableException");

    HttpResponse<String> badBody = send(HttpRequest.newBuilder(uri("/v1/namespaces"))
        .header("Authorization", "Bearer " + TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString("{not json")));
    assertThat(badBody.statusCode()).isEqualTo(400);
    assertThat(badBody.body()).contains("\"code\":400").contains("Cannot parse the request body");

    client.createNamespace(NS);
    client.createTable(EVENTS, SCHEMA);
    HttpResponse<String> conflict = send(HttpRequest.newBuilder(uri("/v1/namespaces/demo/tables/events"))
        .header("Authorization", "Bearer " + TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString("{\"requirements\":[{\"type\":\"assert-table-uuid\","
            + "\"uuid\":\"00000000-0000-0000-0000-000000000000\"}],\"updates\":[]}")));
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(conflict.body()).contains("CommitFailedException");

    HttpResponse<String> noRoute = get("/v2/whatever", TOKEN);
    assertThat(noRoute.statusCode()).isEqualTo(400);
    assertThat(noRoute.body()).contains("no route for GET /v2/whatever");
  }

  @Test
  void requestsWithoutTheTokenAreRefused() throws Exception {
    assertThatThrownBy(() -> restClient(Map.of())).isInstanceOf(NotAuthorizedException.class);
    assertThatThrownBy(() -> restClient(Map.of("token", "wrong"))).isInstanceOf(NotAuthorizedException.class);
    for (String token : new String[] {null, "wrong"}) {
      HttpResponse<String> response = get("/v1/config", token);
      assertThat(response.statusCode()).isEqualTo(401);
      assertThat(new ObjectMapper().readTree(response.body()).at("/error/type").asText())
          .isEqualTo("NotAuthorizedException");
    }
    HttpResponse<String> create = send(HttpRequest.newBuilder(uri("/v1/namespaces"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"namespace\":[\"sneaky\"]}")));
    assertThat(create.statusCode()).isEqualTo(401);
    assertThat(((org.apache.iceberg.catalog.SupportsNamespaces) jdbc).listNamespaces()).isEmpty();
  }

  @Test
  void configPointsClientsAtTheNode() throws Exception {
    JsonNode config = new ObjectMapper().readTree(get("/v1/config", TOKEN).body());
    assertThat(config.at("/overrides/s3.endpoint").asText()).isEqualTo(t.node.endpoint().toString());
    assertThat(config.at("/overrides/s3.path-style-access").asText()).isEqualTo("true");
    assertThat(config.at("/defaults/io-impl").asText()).isEqualTo("org.apache.iceberg.aws.s3.S3FileIO");
    assertThat(config.at("/defaults/client.region").asText()).isEqualTo("us-east-1");
    assertThat(config.at("/defaults/s3.region").asText()).isEqualTo("us-east-1");
    assertThat(config.path("endpoints").toString()).contains("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}");
  }

  @Test
  void loadsAreCachedAndInvalidatedByCommitsThroughTheCatalogAndByTheHook() throws Exception {
    client.createNamespace(NS);
    Table table = client.createTable(EVENTS, SCHEMA);
    String path = "/v1/namespaces/demo/tables/events";
    int before = counting.loads.get();
    assertThat(currentSnapshot(get(path, TOKEN))).isEqualTo(-1L);
    assertThat(currentSnapshot(get(path, TOKEN))).isEqualTo(-1L);
    assertThat(counting.loads.get()).isEqualTo(before + 1);

    table.newAppend().appendFile(writeDataFile(table, "a.parquet")).commit();
    long committed = table.currentSnapshot().snapshotId();
    // Without the invalidation the cached load (no snapshot yet) would still be answered.
    assertThat(currentSnapshot(get(path, TOKEN))).isEqualTo(committed);

    // A commit by another writer is not seen until the TTL, or the hook, invalidates the entry.
    Table direct = jdbc.loadTable(EVENTS);
    direct.newAppend().appendFile(writeDataFile(direct, "b.parquet")).commit();
    assertThat(currentSnapshot(get(path, TOKEN))).isEqualTo(committed);
    t.node.catalogProxy().invalidate(EVENTS);
    assertThat(currentSnapshot(get(path, TOKEN))).isEqualTo(direct.currentSnapshot().snapshotId());
    assertThat(t.node.catalogProxy().loadCacheHits()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void loadsCarryAnETagAndAnswer304UntilTheNextCommit() throws Exception {
    client.createNamespace(NS);
    Table table = client.createTable(EVENTS, SCHEMA);
    String path = "/v1/namespaces/demo/tables/events";
    HttpResponse<String> first = get(path, TOKEN);
    String tag = first.headers().firstValue("ETag").orElseThrow();
    assertThat(tag).matches("W/\"[0-9a-f]{32}\"");

    HttpResponse<String> again = get(path, TOKEN, "If-None-Match", tag);
    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(again.headers().firstValue("ETag")).contains(tag);
    // compared weakly, in a list, and * matches any current load
    assertThat(get(path, TOKEN, "If-None-Match", "\"other\", " + tag.substring(2)).statusCode()).isEqualTo(304);
    assertThat(get(path, TOKEN, "If-None-Match", "*").statusCode()).isEqualTo(304);
    assertThat(get(path, TOKEN, "If-None-Match", "W/\"other\"").statusCode()).isEqualTo(200);
    assertThat(get(path + "?snapshots=refs", TOKEN).headers().firstValue("ETag")).isNotEqualTo(Optional.of(tag));

    table.newAppend().appendFile(writeDataFile(table, "a.parquet")).commit();
    HttpResponse<String> afterCommit = get(path, TOKEN, "If-None-Match", tag);
    assertThat(afterCommit.statusCode()).as("a commit writes a new metadata file: a new tag").isEqualTo(200);
    assertThat(currentSnapshot(afterCommit)).isEqualTo(table.currentSnapshot().snapshotId());
    String next = afterCommit.headers().firstValue("ETag").orElseThrow();
    assertThat(next).isNotEqualTo(tag);
    assertThat(get(path, TOKEN, "If-None-Match", next).statusCode()).isEqualTo(304);
    assertThat(t.node.catalogProxy().notModified()).isEqualTo(4);
  }

  @Test
  void configAndNamespaceLoadsAnswer304UntilTheyChange() throws Exception {
    HttpResponse<String> config = get("/v1/config", TOKEN);
    String configTag = config.headers().firstValue("ETag").orElseThrow();
    assertThat(get("/v1/config", TOKEN, "If-None-Match", configTag).statusCode()).isEqualTo(304);

    client.createNamespace(NS, new HashMap<>(Map.of("owner", "ops")));
    String path = "/v1/namespaces/demo";
    String tag = get(path, TOKEN).headers().firstValue("ETag").orElseThrow();
    assertThat(get(path, TOKEN, "If-None-Match", tag).statusCode()).isEqualTo(304);
    client.setProperties(NS, new HashMap<>(Map.of("tier", "gold")));
    HttpResponse<String> changed = get(path, TOKEN, "If-None-Match", tag);
    assertThat(changed.statusCode()).isEqualTo(200);
    assertThat(changed.body()).contains("gold");
    assertThat(get("/v1/namespaces/demo/tables", TOKEN).headers().firstValue("ETag"))
        .as("lists are not tagged").isEmpty();
  }

  @Test
  void icebergsClientRevalidatesItsCachedTablesAndSeesEveryCommit() {
    client.createNamespace(NS);
    client.createTable(EVENTS, SCHEMA);
    assertThat(client.loadTable(EVENTS).currentSnapshot()).isNull();
    long before = t.node.catalogProxy().notModified();
    assertThat(client.loadTable(EVENTS).currentSnapshot()).isNull();
    assertThat(t.node.catalogProxy().notModified()).as("the second load revalidated: 304").isEqualTo(before + 1);

    try (RESTCatalog writer = restClient(Map.of("token", TOKEN))) {
      Table table = writer.loadTable(EVENTS);
      table.newAppend().appendFile(writeDataFile(table, "a.parquet")).commit();
      assertThat(client.loadTable(EVENTS).currentSnapshot().snapshotId())
          .isEqualTo(table.currentSnapshot().snapshotId());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long currentSnapshot(HttpResponse<String> load) throws IOException {
    assertThat(load.statusCode()).isEqualTo(200);
    JsonNode metadata = new ObjectMapper().readTree(load.body()).path("metadata");
    return metadata.path("current-snapshot-id").asLong(-1);
  }

  private static DataFile writeDataFile(Table table, String name) {
    OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation(name));
    byte[] bytes = ("rows of " + name).getBytes(StandardCharsets.UTF_8);
    try (PositionOutputStream stream = out.create()) {
      stream.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return DataFiles.builder(table.spec()).withPath(out.location()).withFileSizeInBytes(bytes.length)
        .withRecordCount(3).withFormat(FileFormat.PARQUET).build();
  }

  private URI uri(String path) {
    return URI.create(t.node.catalogUri() + path);
  }

  private HttpResponse<String> get(String path, String token, String header, String value) throws Exception {
    return send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", "Bearer " + token)
        .header(header, value));
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(request);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
