package io.verglas.cli.cachenode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.cache.writeback.WriteBackStats;
import io.verglas.net.LoopbackPorts;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code verglas cache-node}'s node over a real S3-compatible origin (another cache node, in
 * process, over a directory, standing for MinIO): it creates the bucket there, serves objects
 * written through it from the origin, answers the REST catalog (on SQLite here; compose.yaml
 * uses PostgreSQL) with table files written through itself, and keeps its admin reads behind
 * the admin token.
 */
class StandaloneCacheNodeITCase {
  private static final Map<String, String> ENV = Map.of(
      NodeKeys.ORIGIN_ACCESS_KEY, "origin", NodeKeys.ORIGIN_SECRET_KEY, "origin-secret",
      NodeKeys.ACCESS_KEY, "client", NodeKeys.SECRET_KEY, "client-secret",
      NodeKeys.JOB_ACCESS_KEY, "jobs", NodeKeys.JOB_SECRET_KEY, "jobs-secret",
      NodeKeys.CATALOG_TOKEN, "catalog-token", NodeKeys.ADMIN_TOKEN, "admin-token");

  @TempDir Path dir;

  @Test
  void buffersThePutsOfItsWriteBackPrefixes() throws Exception {
    try (LocalDirectoryOrigin directory = new LocalDirectoryOrigin(dir.resolve("origin"));
        CacheNode origin = originNode(directory);
        StandaloneCacheNode node = StandaloneCacheNode.start(options(origin, null,
            writeBack("--write-back-prefix", "buffered/", "--write-back-ack-fragments", "2")), NodeKeys.from(ENV));
        S3Client client = new ObjectStoreEndpoint(node.endpoint(), "us-east-1", "client",
            "client-secret", "warehouse").newClient()) {
      client.putObject(b -> b.bucket("warehouse").key("buffered/a"), RequestBody.fromString("soon"));
      client.putObject(b -> b.bucket("warehouse").key("other/b"), RequestBody.fromString("now"));
      assertThat(client.getObjectAsBytes(b -> b.bucket("warehouse").key("buffered/a")).asUtf8String())
          .isEqualTo("soon");
      HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          node.adminEndpoint().resolve("/metrics")).header("Authorization", "Bearer admin-token").build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body()).contains("verglas_cache_writeback_acknowledged_total 1\n");
    }
  }

  @Test
  void threeMembersOfACacheClusterAcknowledgeWithOneFragmentEachAndServeTheWriteThroughEveryNode() throws Exception {
    Map<String, String> env = new HashMap<>(ENV);
    env.put(NodeKeys.CLUSTER_SECRET, "a-cluster-secret-of-the-test");
    NodeKeys keys = NodeKeys.from(env);
    int offset = io.verglas.cache.cluster.ClusterConfig.FAILURE_DETECTION_PORT_OFFSET;
    List<Integer> gossip = List.of(LoopbackPorts.free("gossip", offset), LoopbackPorts.free("gossip", offset),
        LoopbackPorts.free("gossip", offset));
    List<StandaloneCacheNode> nodes = new ArrayList<>();
    try (LocalDirectoryOrigin directory = new LocalDirectoryOrigin(dir.resolve("origin"));
        CacheNode origin = originNode(directory)) {
      try {
        for (int i = 0; i < 3; i++) {
          CacheNodeCommand command = new CacheNodeCommand();
          List<String> args = new ArrayList<>(List.of("--origin-endpoint", origin.endpoint().toString(),
              "--port", "0", "--admin-port", "0", "--spool-dir", dir.resolve("spool-" + i).toString(),
              "--write-back-prefix", "buffered/", "--write-back-dir", dir.resolve("writeback-" + i).toString(),
              "--cluster-node-id", "node-" + i, "--cluster-gossip-port", gossip.get(i).toString()));
          gossip.forEach(port -> args.addAll(List.of("--cluster-seed", "127.0.0.1:" + port)));
          new CommandLine(command).parseArgs(args.toArray(String[]::new));
          StandaloneCacheNode.Options options = command.options(keys);
          assertThat(options.writeBack().localFragmentStores()).as("fragments go to the members").isFalse();
          nodes.add(StandaloneCacheNode.start(options, keys));
        }
        for (StandaloneCacheNode node : nodes) {
          awaitMembers(node.node(), 3);
        }
        byte[] body = new byte[300_000];
        new java.util.Random(7).nextBytes(body);
        try (S3Client first = client(nodes.get(0)); S3Client third = client(nodes.get(2))) {
          first.putObject(b -> b.bucket("warehouse").key("buffered/a"), RequestBody.fromBytes(body));
          assertThat(third.getObjectAsBytes(b -> b.bucket("warehouse").key("buffered/a")).asByteArray())
              .isEqualTo(body);
        }
        WriteBackStats coordinator = nodes.get(0).node().writeBack().stats();
        assertThat(coordinator.acknowledged()).as("acknowledged once w=3 members held a fragment").isEqualTo(1);
        assertThat(coordinator.writtenThrough()).isZero();
        assertThat(dir.resolve("writeback-0").resolve("fragments").resolve("local-0")).doesNotExist();
      } finally {
        nodes.forEach(StandaloneCacheNode::close);
      }
    }
  }

  private static void awaitMembers(CacheNode node, int members) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (node.cluster().view().members().size() != members) {
      assertThat(System.nanoTime()).as("a view of %d members", members).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  private static S3Client client(StandaloneCacheNode node) {
    return new ObjectStoreEndpoint(node.endpoint(), "us-east-1", "client", "client-secret", "warehouse").newClient();
  }

  @Test
  void servesTheOriginsObjectsAndTheRestCatalogThroughItself() throws Exception {
    try (LocalDirectoryOrigin directory = new LocalDirectoryOrigin(dir.resolve("origin"));
        CacheNode origin = originNode(directory);
        StandaloneCacheNode node = StandaloneCacheNode.start(
            options(origin, "jdbc:sqlite:" + dir.resolve("catalog.db"), null), NodeKeys.from(ENV));
        S3Client client = new ObjectStoreEndpoint(node.endpoint(), "us-east-1", "client",
            "client-secret", "warehouse").newClient();
        S3Client atOrigin = new ObjectStoreEndpoint(origin.endpoint(), "us-east-1", "origin",
            "origin-secret", "warehouse").newClient()) {
      client.putObject(b -> b.bucket("warehouse").key("a/b.txt"), RequestBody.fromString("through"));
      assertThat(atOrigin.getObjectAsBytes(b -> b.bucket("warehouse").key("a/b.txt")).asUtf8String())
          .isEqualTo("through");

      Catalog catalog = restCatalog(node.catalogUri());
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("shop"));
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      catalog.createTable(TableIdentifier.of("shop", "orders"), schema);
      Table table = catalog.loadTable(TableIdentifier.of("shop", "orders"));
      assertThat(table.schema().asStruct()).isEqualTo(schema.asStruct());
      String metadataKey = URI.create(metadataLocation(table)).getPath().substring(1);
      assertThat(atOrigin.headObject(b -> b.bucket("warehouse").key(metadataKey)).contentLength())
          .isPositive();

      assertThat(status(node.adminEndpoint().resolve("/health"), null)).isEqualTo(200);
      assertThat(status(node.adminEndpoint().resolve("/stats"), null)).isEqualTo(401);
      assertThat(status(node.adminEndpoint().resolve("/stats"), "admin-token")).isEqualTo(200);
    }
  }

  @Test
  void missingKeysAreNamed() {
    Map<String, String> env = new HashMap<>(ENV);
    env.remove(NodeKeys.CATALOG_TOKEN);
    assertThatThrownBy(() -> NodeKeys.from(env)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot start the cache node: " + NodeKeys.CATALOG_TOKEN + " is not set");
    env.put(NodeKeys.CATALOG_TOKEN, "t");
    env.remove(NodeKeys.JOB_SECRET_KEY);
    assertThatThrownBy(() -> NodeKeys.from(env)).hasMessageContaining("set both "
        + NodeKeys.JOB_ACCESS_KEY + " and " + NodeKeys.JOB_SECRET_KEY);
  }

  private static String metadataLocation(Table table) {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }

  /** A standard REST catalog client with the clients' S3 keys; the endpoint comes from /catalog. */
  private static Catalog restCatalog(URI uri) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("type", "rest");
    props.put("uri", uri.toString());
    props.put("token", "catalog-token");
    props.put("s3.access-key-id", "client");
    props.put("s3.secret-access-key", "client-secret");
    return Catalogs.load("client", props);
  }

  /** An S3 origin for the node under test: a cache node of its own over a local directory. */
  private CacheNode originNode(LocalDirectoryOrigin directory) {
    return CacheNode.builder().credentials("origin", "origin-secret").origin(directory)
        .spoolDirectory(dir.resolve("origin-spool")).build().start();
  }

  private StandaloneCacheNode.Options options(CacheNode origin, String catalogUri, WriteBackConfig writeBack) {
    return new StandaloneCacheNode.Options(origin.endpoint(), "us-east-1", "warehouse", "127.0.0.1", 0, 0,
        "us-east-1", 64L << 20, dir.resolve("spool"), catalogUri, writeBack, null);
  }

  /** The write-back settings of {@code verglas cache-node}'s flags. */
  private WriteBackConfig writeBack(String... flags) {
    WriteBackFlags parsed = new WriteBackFlags();
    new CommandLine(parsed).parseArgs(flags);
    return parsed.config("warehouse", dir.resolve("writeback"), true);
  }

  private static int status(URI uri, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
