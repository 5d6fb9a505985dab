package io.verglas.cache.cluster;

import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.TestingCountingOrigin;
import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.writeback.WriteBackConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Real cache nodes in one JVM forming a cluster on loopback over one shared
 * {@link LocalDirectoryOrigin}; each node reads it through its own
 * {@link TestingCountingOrigin}, so origin reads are counted per node.
 */
final class TestingCluster implements AutoCloseable {
  static final String BUCKET = TestingCacheNode.BUCKET;
  static final int BLOCK = CacheNode.MIN_BLOCK_SIZE;
  /** Every node's DRAM, and so its advertised capacity. */
  static final long CAPACITY = 64L * BLOCK;

  final LocalDirectoryOrigin origin;
  final List<TestingCountingOrigin> origins = new ArrayList<>();
  final List<CacheNode> nodes = new ArrayList<>();
  final List<S3Client> clients = new ArrayList<>();

  private final int[] ports;
  private final Duration peerTimeout;
  private final UnaryOperator<ClusterConfig.Builder> settings;
  private final java.util.function.BiFunction<Integer, CacheNode.Builder, CacheNode.Builder> nodeSettings;

  TestingCluster(Path root, int size, Duration peerTimeout) {
    this(root, size, size, peerTimeout, b -> b);
  }

  TestingCluster(Path root, int size, int started, Duration peerTimeout) {
    this(root, size, started, peerTimeout, b -> b);
  }

  /**
   * Room for {@code size} nodes (all are seeds), of which the first {@code started} start now,
   * with cluster {@code settings} beyond ports, secret and peer timeout.
   */
  TestingCluster(Path root, int size, int started, Duration peerTimeout,
      UnaryOperator<ClusterConfig.Builder> settings) {
    this(root, size, started, peerTimeout, settings, (i, b) -> b);
  }

  /** As above, with node {@code i}'s builder given to {@code nodeSettings} before it is built. */
  TestingCluster(Path root, int size, int started, Duration peerTimeout,
      UnaryOperator<ClusterConfig.Builder> settings,
      java.util.function.BiFunction<Integer, CacheNode.Builder, CacheNode.Builder> nodeSettings) {
    this.nodeSettings = nodeSettings;
    this.origin = new LocalDirectoryOrigin(root);
    this.ports = TestingPorts.free(size);
    this.peerTimeout = peerTimeout;
    this.settings = settings;
    try {
      for (int i = 0; i < started; i++) {
        startNode();
      }
      clients.get(0).createBucket(b -> b.bucket(BUCKET));
      awaitMembers(started);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Three nodes with write-back of {@link #BUCKET}'s {@code wb/} (k=2, m=1, w=3, cells of {@code
   * cellBytes}), node i's buffers in {@code buffers/node-i}, propagation passes only when a test
   * runs one.
   */
  static TestingCluster withWriteBack(Path root, Path buffers, int cellBytes) {
    return new TestingCluster(root, 3, 3, Duration.ofSeconds(5), b -> b, (i, b) -> b.writeBack(
        WriteBackConfig.builder().dataFragments(2).parityFragments(1).ackFragments(3).cellBytes(cellBytes)
            .directory(buffers.resolve("node-" + i)).propagationInterval(Duration.ofHours(1))
            .enable(BUCKET, "wb/").build()));
  }

  /**
   * Starts the next node (node-i, i = the number started so far). Each node after the first gets a
   * gossip port found free now (the one reserved at first may be taken meanwhile, by an outgoing
   * connection or a failure detection socket); its seeds still name the others.
   */
  void startNode() {
    int i = nodes.size();
    if (!nodes.isEmpty()) {
      ports[i] = TestingPorts.free(1)[0];
    }
    TestingCountingOrigin counting = new TestingCountingOrigin(origin);
    origins.add(counting);
    CacheNode node = build(i, counting);
    nodes.add(node);
    clients.add(client(node));
  }

  /** Starts node {@code i} again (closed before), with the same id, on a gossip port free now. */
  void restartNode(int i) {
    ports[i] = TestingPorts.free(1)[0];
    clients.get(i).close();
    CacheNode node = build(i, origins.get(i));
    nodes.set(i, node);
    clients.set(i, client(node));
  }

  private CacheNode build(int i, TestingCountingOrigin counting) {
    return nodeSettings.apply(i, CacheNode.builder()
        .credentials(TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY)
        .origin(counting)
        .blockSize(BLOCK)
        .dramCapacityBytes(CAPACITY)
        .metadataStoreCapacityBytes(0)
        .adminPort(0)
        .cluster(settings.apply(TestingPorts.config(i, ports).peerTimeout(peerTimeout)).build()))
        .build()
        .start();
  }

  void awaitMembers(int count) {
    for (CacheNode node : nodes) {
      Eventually.await("a view of " + count + " members", () -> node.cluster().view().members().size() == count,
          () -> node.cluster().view().toString());
    }
  }

  /** Index of the node owning the key in node 0's view. */
  int owner(String key) {
    String id = nodes.get(0).cluster().view().owner(BUCKET, key).orElseThrow().id();
    return Integer.parseInt(id.substring(id.indexOf('-') + 1));
  }

  /** A key owned by node {@code index}. */
  String keyOwnedBy(int index, String prefix) {
    for (int i = 0; ; i++) {
      String key = prefix + i;
      if (owner(key) == index) {
        return key;
      }
    }
  }

  void put(int node, String key, byte[] data) {
    clients.get(node).putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
  }

  byte[] get(int node, String key) {
    return clients.get(node).getObjectAsBytes(GetObjectRequest.builder().bucket(BUCKET).key(key).build()).asByteArray();
  }

  byte[] getRange(int node, String key, long start, long end) {
    return clients.get(node).getObjectAsBytes(GetObjectRequest.builder().bucket(BUCKET).key(key)
        .range("bytes=" + start + "-" + end).build()).asByteArray();
  }

  int originReads() {
    return origins.stream().mapToInt(o -> o.rangeReads.get()).sum();
  }

  private static S3Client client(CacheNode node) {
    return client(node.endpoint());
  }

  /** A client of the test credentials for the node at {@code endpoint}. */
  static S3Client client(java.net.URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY)))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  @Override
  public void close() {
    clients.forEach(S3Client::close);
    nodes.forEach(CacheNode::close);
    origin.close();
  }
}
