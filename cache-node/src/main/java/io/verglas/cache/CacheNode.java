package io.verglas.cache;

import io.verglas.cache.admin.AdminServer;
import io.verglas.cache.admin.CacheAdmin;
import io.verglas.cache.awareness.Awareness;
import io.verglas.cache.awareness.AwarenessConfig;
import io.verglas.cache.awareness.NodeCaches;
import io.verglas.cache.awareness.NodeReads;
import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.MetadataStore;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockRead;
import io.verglas.cache.block.MissPath;
import io.verglas.cache.catalog.CatalogProxy;
import io.verglas.cache.catalog.RestCatalogConfig;
import io.verglas.cache.cluster.Cluster;
import io.verglas.cache.cluster.ClusterStats;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.cluster.peer.PeerService;
import io.verglas.cache.s3.KeyChanges;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.ObservedOrigin;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginRequestListener;
import io.verglas.cache.protection.OriginProtection;
import io.verglas.cache.protection.ProtectedOrigin;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.cache.writeback.WriteBackNode;
import io.verglas.cache.writeback.peer.ClusterTransport;
import io.verglas.cache.writeback.WriteBackStats;
import io.verglas.cache.s3.ReadObserver;
import io.verglas.cache.s3.ServiceEndpoint;
import io.verglas.cache.s3.S3Server;
import io.verglas.cache.s3.S3ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * A cache node: an S3-compatible HTTP endpoint in front of one {@link Origin}, serving object
 * reads through a block cache (DRAM, optional NVMe) and a metadata store.
 *
 * <pre>{@code
 * try (S3Origin origin = S3Origin.builder().endpoint(URI.create("https://s3.example.com"))
 *         .credentials(access, secret).build();
 *     CacheNode node = CacheNode.builder()
 *         .credentials("client-key", "client-secret")
 *         .origin(origin)                          // or new LocalDirectoryOrigin(dir)
 *         .dramCapacityBytes(4L << 30)
 *         .nvmeDirectory(Path.of("/nvme/verglas")).nvmeCapacityBytes(500L << 30)
 *         .adminPort(9091)                         // /health, /stats, /metrics, POST /purge
 *         .awareness(AwarenessConfig.builder()     // optional: follow the change feed
 *             .feedUri(URI.create("http://127.0.0.1:9092/events"))
 *             .stateDirectory(Path.of("/var/lib/verglas/watcher"))
 *             .catalog(() -> jdbcCatalog)          // and poll for other engines' commits
 *             .build())
 *         .catalog(RestCatalogConfig.builder(jdbcCatalog, catalogToken).build())  // optional
 *         .build()
 *         .start()) {
 *   URI endpoint = node.endpoint();   // http://127.0.0.1:<port>, path-style
 *   URI rest = node.catalogUri();     // <endpoint>/catalog, Iceberg REST
 * }
 * }</pre>
 *
 * <p>Reads resolve a key to one ETag and serve every byte of the response from that version
 * (blocks are keyed by ETag). Iceberg's immutable files are resolved once; other objects are
 * revalidated with If-None-Match after {@link Builder#metadataTtl}. Writes go through to the
 * origin before they are acknowledged. Calls to the origin pass a concurrency limit, retries
 * and a circuit breaker ({@link OriginProtection}). The node does not own the origin: close the
 * origin after the node.
 *
 * <p>With {@link Builder#awareness} the node follows the catalog's change feed (and, as the
 * fallback for other engines' commits, polls the catalog at a bounded rate) and, on startup
 * and after each commit, walks the table's new metadata (metadata file, manifest list,
 * manifests, Parquet footers) into its metadata store under its own byte-rate, concurrency and
 * per-table budgets, so the first query after a commit plans from cache; objects that metadata
 * names are then immutable whatever their path. It also counts what clients read by (table,
 * partition, column), shown by the admin endpoint's {@code GET /heat?table=ns.t}, and after a
 * compaction prefetches the hot column chunks of the replacement files
 * ({@code io.verglas.cache.awareness}).
 *
 * <p>With {@link Builder#catalog} the endpoint also serves an Iceberg REST catalog under
 * {@code /catalog} over the given catalog, for clients sending its bearer token; its config
 * response points their S3 at this node ({@code io.verglas.cache.catalog}). The path is
 * reserved: a bucket named {@code catalog} cannot be served path-style.
 *
 * <p>With {@link Builder#cluster} the node joins a cache cluster: a block miss asks the key's
 * owner (capacity-weighted rendezvous over the live members) for the exact ETag-qualified
 * block before the origin, falling through to the origin on any peer failure; the node serves
 * its own blocks to the others, and its writes make the others drop their resolved ETag of the
 * key before they are answered ({@code io.verglas.cache.cluster}).
 */
public final class CacheNode implements AutoCloseable {
  public static final int MIB = 1024 * 1024;
  /** Threads serving S3 connections are named with this prefix (for profilers, thread dumps). */
  public static final String IO_THREAD_PREFIX = S3Server.IO_THREAD_PREFIX;
  public static final int DEFAULT_BLOCK_SIZE = 2 * MIB;
  public static final int MIN_BLOCK_SIZE = MIB;
  public static final int MAX_BLOCK_SIZE = 8 * MIB;
  public static final long DEFAULT_DRAM_CAPACITY = 256L * MIB;
  public static final long DEFAULT_MAX_OBJECT_SIZE = 5L * 1024 * MIB;
  public static final long DEFAULT_SPOOL_THRESHOLD = 8L * MIB;
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofMinutes(15);
  /** Verified session tokens kept by default: a node serves a few hundred worker runs at once. */
  public static final int DEFAULT_SESSION_CACHE_ENTRIES = 10_000;
  public static final Duration DEFAULT_METADATA_TTL = Duration.ofSeconds(2);
  public static final int DEFAULT_NVME_IO_THREADS = 4;
  public static final long DEFAULT_METADATA_STORE_CAPACITY = 64L * MIB;
  public static final int DEFAULT_METADATA_STORE_MAX_ENTRY = 8 * MIB;

  private final S3ServerConfig config;
  private final S3Server server;
  private final AdminServer adminServer;
  private final String adminHost;
  private final Awareness awareness;
  private final CatalogProxy catalog;
  private final Cluster cluster;
  private final WriteBackNode writeBack;
  private final java.time.Instant created;
  private int port = -1;
  private int adminPort = -1;
  private boolean closed;

  private CacheNode(S3ServerConfig config, Origin origin, String adminHost, Integer adminPort,
      String adminToken, Awareness awareness, RestCatalogConfig catalogConfig,
      List<ServiceEndpoint> services, ClusterConfig clusterConfig, WriteBackConfig writeBackConfig) {
    this.config = config;
    this.cluster = clusterConfig == null ? null
        : new Cluster(clusterConfig, config.dramCapacityBytes() + config.nvmeCapacityBytes());
    try {
      this.writeBack = writeBackConfig == null ? null : openWriteBack(writeBackConfig, config.clock(), cluster);
    } catch (RuntimeException e) {
      if (cluster != null) {
        cluster.close();
      }
      throw e;
    }
    this.catalog = catalogConfig == null ? null
        : new CatalogProxy(catalogConfig, this::endpoint, config.region(), config.clock());
    List<ServiceEndpoint> served = new ArrayList<>(services);
    if (catalog != null) {
      served.add(catalog);
    }
    this.server = new S3Server(config, origin,
        awareness == null ? ReadObserver.NONE : awareness.readObserver(), served,
        cluster == null ? MissPath.ORIGIN : cluster.missPath(),
        cluster == null ? KeyChanges.NONE : cluster.keyChanges(),
        writeBack == null ? UnaryOperator.identity() : writeBack::wrap);
    this.awareness = awareness;
    this.adminHost = adminHost;
    this.adminServer = adminPort == null ? null
        : new AdminServer(adminHost, adminPort, new Admin(), adminToken);
    this.created = config.clock().instant();
  }

  public static Builder builder() {
    return new Builder();
  }

  private static WriteBackNode openWriteBack(WriteBackConfig config, Clock clock, Cluster cluster) {
    try {
      return cluster == null ? WriteBackNode.open(config, clock)
          : WriteBackNode.open(config, clock, new ClusterTransport(cluster));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open write-back in " + config.directory() + ": " + e.getMessage(), e);
    }
  }

  /**
   * This node's erasure-coded write-back: its stats, and a propagation or scrub pass on demand.
   *
   * @throws IllegalStateException if the node was built without {@link Builder#writeBack}
   */
  public WriteBackNode writeBack() {
    if (writeBack == null) {
      throw new IllegalStateException("Cannot use write-back: this node was built without it");
    }
    return writeBack;
  }

  /** Binds the endpoint; returns this node. */
  public synchronized CacheNode start() {
    if (closed) {
      throw new IllegalStateException("Cannot start a closed cache node");
    }
    if (port >= 0) {
      throw new IllegalStateException("Cannot start a cache node twice");
    }
    port = server.start();
    try {
      if (adminServer != null) {
        adminPort = adminServer.start();
      }
      if (cluster != null) {
        server.blockCache().onDramHit(cluster.hotBlocks());
        cluster.start(new Peers());
      }
      if (awareness != null) {
        awareness.start(new NodeCaches(new Reads(), server.metadataStore(), server.blockCache(),
            config.blockSize(), () -> server.protectedOrigin().queued() > 0));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    return this;
  }

  /** What this node does for its cache cluster's peers. */
  private final class Peers implements PeerService {
    @Override
    public CompletableFuture<BlockRead> read(BlockId id, int length) {
      return server.blockCache().get(id, block -> cluster.ownerFill(block, length, b -> server.readVersion(
          b.bucket(), b.key(), b.etag(), b.offset(), length)));
    }

    @Override
    public void forget(String bucket, String key) {
      server.forget(bucket, key);
    }

    @Override
    public void replicate(BlockId id, int length) {
      cluster.replicaOffered(id, length);
    }

    @Override
    public java.util.concurrent.CompletableFuture<byte[]> writeBack(long connection, byte[] request) {
      return writeBack == null ? PeerService.super.writeBack(connection, request) : writeBack.serve(connection, request);
    }

    @Override
    public void disconnected(long connection) {
      if (writeBack != null) {
        writeBack.disconnected(connection);
      }
    }
  }

  /** The read path's primitives, for warming. */
  private final class Reads implements NodeReads {
    @Override
    public CompletableFuture<ObjectMeta> resolve(String bucket, String key) {
      return server.resolve(bucket, key);
    }

    @Override
    public CompletableFuture<byte[]> readVersion(String bucket, String key, String etag, long offset, int length) {
      return server.readVersion(bucket, key, etag, offset, length);
    }
  }

  /**
   * The admin endpoint ({@code http://<host>:<port>}: /health, /stats, /metrics, POST /purge);
   * the node must be started with an admin port configured.
   */
  public synchronized URI adminEndpoint() {
    if (adminPort < 0) {
      throw new IllegalStateException(adminServer == null
          ? "Cannot tell the admin endpoint: no admin port was configured"
          : "Cannot tell the admin endpoint: the cache node is not started");
    }
    return URI.create("http://" + displayHost(adminHost) + ":" + adminPort);
  }

  /**
   * Forgets everything cached for keys of {@code bucket} starting with {@code prefix} ("" for
   * the whole bucket): blocks in DRAM and NVMe, metadata store entries and resolved ETags.
   */
  public PurgeResult purge(String bucket, String prefix) {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    S3Server.PurgeCounts counts = server.purge(bucket, prefix);
    return new PurgeResult(bucket, prefix, counts.blocks(), counts.metadataEntries(), counts.etags());
  }

  /** A health report: {@code status} is "ok", or "degraded" while the origin is failing. */
  public Map<String, Object> health() {
    Map<String, Object> health = new LinkedHashMap<>();
    String circuit = server.protectedOrigin().circuitState();
    boolean failing = circuit.equals("OPEN") || circuit.equals("HALF_OPEN");
    health.put("status", failing ? "degraded" : "ok");
    health.put("origin", failing ? "failing (circuit " + circuit + "); serving cached bytes only" : "ok");
    health.put("since", created.toString());
    health.put("nvme", server.blockCache().hasNvme() ? "on" : "off");
    return health;
  }

  private final class Admin implements CacheAdmin {
    @Override
    public CacheStats stats() {
      return CacheNode.this.stats();
    }

    @Override
    public PurgeResult purge(String bucket, String prefix) {
      return CacheNode.this.purge(bucket, prefix);
    }

    @Override
    public Map<String, Object> health() {
      return CacheNode.this.health();
    }

    @Override
    public WriteBackStats writeBackStats() {
      return writeBack == null ? null : writeBack.stats();
    }

    @Override
    public Map<String, Object> heat(String table, int limit) {
      return awareness == null ? null : awareness.heat(table, limit);
    }

    @Override
    public Map<String, Object> cluster() {
      return cluster == null ? null : cluster.report();
    }

    @Override
    public ClusterStats clusterStats() {
      return cluster == null ? null : cluster.stats();
    }
  }

  /**
   * The node's cache cluster (membership, placement, peer counters); the node must be built
   * with {@link Builder#cluster}.
   */
  public Cluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("Cannot report the cluster: the node was built without one");
    }
    return cluster;
  }

  /**
   * What clients read of {@code table} ({@code "ns.name"}), hottest partitions first with their
   * columns, at most {@code limit} partitions; the node must be built with
   * {@link Builder#awareness}.
   */
  public Map<String, Object> heat(String table, int limit) {
    if (awareness == null) {
      throw new IllegalStateException("Cannot report heat: the node was built without awareness");
    }
    return awareness.heat(table, limit);
  }

  /**
   * The Iceberg REST catalog's URI ({@code <endpoint>/catalog}, what clients set as {@code uri});
   * the node must be started with {@link Builder#catalog}.
   */
  public URI catalogUri() {
    catalogProxy();
    return URI.create(endpoint() + ("/" + CatalogProxy.SEGMENT));
  }

  /**
   * The REST catalog, for {@link CatalogProxy#invalidate} on commits made elsewhere; the node
   * must be built with {@link Builder#catalog}.
   */
  public CatalogProxy catalogProxy() {
    if (catalog == null) {
      throw new IllegalStateException("Cannot serve /catalog: no catalog was configured");
    }
    return catalog;
  }

  /** The bound port; the node must be started. */
  public synchronized int port() {
    if (port < 0) {
      throw new IllegalStateException("Cannot tell the port: the cache node is not started");
    }
    return port;
  }

  /** {@code http://<host>:<port>}; a wildcard bind address is reported as the loopback address. */
  public URI endpoint() {
    return URI.create("http://" + displayHost(config.host()) + ":" + port());
  }

  private static String displayHost(String configured) {
    String host = configured;
    try {
      if (InetAddress.getByName(host).isAnyLocalAddress()) {
        host = InetAddress.getLoopbackAddress().getHostAddress();
      }
    } catch (UnknownHostException e) {
      // keep the configured name
    }
    if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return host;
  }

  public String region() {
    return config.region();
  }

  public CacheStats stats() {
    BlockCache blocks = server.blockCache();
    TierStats dram = new TierStats(blocks.dramHits(), blocks.dramMisses(), blocks.dramFills(),
        blocks.dramEvictions(), blocks.dramAdmissionRejects(), blocks.dramBytes(),
        blocks.dramCapacityBytes(), blocks.dramEntries());
    TierStats nvme = !blocks.hasNvme() ? TierStats.ABSENT
        : new TierStats(blocks.nvmeHits(), blocks.nvmeMisses(), blocks.nvmeFills(),
            blocks.nvmeEvictions(), blocks.nvmeAdmissionRejects(), blocks.nvmeBytes(),
            blocks.nvmeCapacityBytes(), blocks.nvmeEntries());
    MetadataStore store = server.metadataStore();
    TierStats metadata = store == null ? TierStats.ABSENT
        : new TierStats(store.hits(), store.misses(), store.fills(), store.evictions(), 0,
            store.bytes(), store.capacityBytes(), store.entries());
    return new CacheStats(
        blocks.hits(),
        blocks.misses(),
        blocks.coalesced(),
        blocks.backgroundMisses(),
        server.bytesServedFromCache(),
        blocks.fills(),
        blocks.evictions(),
        server.originRequests(),
        blocks.dramBytes(),
        blocks.dramCapacityBytes(),
        dram,
        nvme,
        metadata,
        blocks.nvmeChecksumFailures(),
        blocks.nvmeRecovered(),
        blocks.nvmeDroppedWrites(),
        server.revalidations(),
        server.revalidationsNotModified(),
        originStats(),
        awareness == null ? AwarenessStats.ABSENT : awareness.stats());
  }

  private OriginStats originStats() {
    ProtectedOrigin p = server.protectedOrigin();
    return new OriginStats(p.attempts(), p.retries(), p.failures(), p.shortCircuited(),
        p.rejected(), p.inFlight(), p.queued(), p.circuitState());
  }

  /**
   * Waits until the blocks accepted for the NVMe tier so far are written (or dropped), so a
   * restart finds them. NVMe writes happen in the background and never delay a response.
   */
  public void flush() {
    server.blockCache().flush();
  }

  /** Stops serving and releases the event loops and cached blocks; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (cluster != null) {
      cluster.close(); // leave first: the others stop routing here while this node still serves
    }
    if (awareness != null) {
      awareness.close();
    }
    if (adminServer != null) {
      adminServer.close();
    }
    server.close();
    if (writeBack != null) {
      writeBack.close();
    }
    if (catalog != null) {
      catalog.close();
    }
  }

  @Override
  public String toString() {
    return "CacheNode[" + config + "]";
  }

  /**
   * Builds a {@link CacheNode}. Each setting may be set once (a second call is an
   * IllegalStateException); values are checked as they are set, cross-field rules in
   * {@link #build()}. Required: {@link #origin}, and {@link #credentials} unless
   * {@link #allowAnonymous} is true.
   */
  public static final class Builder {
    private String host;
    private Integer port;
    private String region;
    private final Map<String, String> credentials = new LinkedHashMap<>();
    private final java.util.Set<String> backgroundAccessKeys = new java.util.LinkedHashSet<>();
    private Origin origin;
    private Integer blockSize;
    private Long dramCapacityBytes;
    private Boolean allowAnonymous;
    private io.verglas.access.ScopedTokens scopedTokens;
    private Integer sessionCacheEntries;
    private Clock clock;
    private Duration maxClockSkew;
    private Long maxObjectSize;
    private Long spoolThresholdBytes;
    private Path spoolDirectory;
    private Duration metadataTtl;
    private String virtualHostDomain;
    private Integer ioThreads;
    private Path nvmeDirectory;
    private Long nvmeCapacityBytes;
    private Integer nvmeIoThreads;
    private ImmutableObjects immutableObjects;
    private Long metadataStoreCapacityBytes;
    private Integer metadataStoreMaxEntryBytes;
    private Integer adminPort;
    private String adminHost;
    private String adminToken;
    private OriginProtection originProtection;
    private OriginRequestListener originRequests;
    private AwarenessConfig awareness;
    private RestCatalogConfig catalog;
    private ClusterConfig cluster;
    private WriteBackConfig writeBack;
    private final List<ServiceEndpoint> services = new ArrayList<>();

    private Builder() {}

    /** Address to bind; default 127.0.0.1. */
    public Builder host(String value) {
      once(host, "host");
      host = requireText(value, "host");
      return this;
    }

    /** Port to bind, 0 for a random free port (the default). */
    public Builder port(int value) {
      once(port, "port");
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("Invalid port: " + value + " (0..65535)");
      }
      port = value;
      return this;
    }

    /** Region named in responses; default us-east-1. Signatures of any region are accepted. */
    public Builder region(String value) {
      once(region, "region");
      region = requireText(value, "region");
      return this;
    }

    /** Adds an access key and its secret; may be called for several keys. */
    public Builder credentials(String accessKey, String secretKey) {
      requireText(accessKey, "accessKey");
      requireText(secretKey, "secretKey");
      if (credentials.containsKey(accessKey)) {
        throw new IllegalStateException("Access key " + accessKey + " was already set");
      }
      credentials.put(accessKey, secretKey);
      return this;
    }

    /**
     * Adds an access key for the operator's own background jobs (compaction, maintenance, the
     * materializer; another engine's rewrite job may use it too). Its requests authenticate
     * like any other, but its reads record no heat and admit nothing to the cache tiers: what
     * is cached still serves them, and a compaction reading a whole table neither evicts the
     * clients' working set nor makes its every column look hot.
     */
    public Builder backgroundCredentials(String accessKey, String secretKey) {
      credentials(accessKey, secretKey);
      backgroundAccessKeys.add(accessKey);
      return this;
    }

    public Builder origin(Origin value) {
      once(origin, "origin");
      origin = Objects.requireNonNull(value, "origin");
      return this;
    }

    /** Block size of the cache, 1 to 8 MiB; default 2 MiB. */
    public Builder blockSize(int bytes) {
      once(blockSize, "blockSize");
      if (bytes < MIN_BLOCK_SIZE || bytes > MAX_BLOCK_SIZE) {
        throw new IllegalArgumentException("Invalid block size: " + bytes + " (must be "
            + MIN_BLOCK_SIZE + ".." + MAX_BLOCK_SIZE + " bytes)");
      }
      blockSize = bytes;
      return this;
    }

    /** Ceiling of the DRAM tier in bytes; at least one block; default 256 MiB. */
    public Builder dramCapacityBytes(long bytes) {
      once(dramCapacityBytes, "dramCapacityBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid DRAM capacity: " + bytes + " (must be > 0)");
      }
      dramCapacityBytes = bytes;
      return this;
    }

    /** Serve unsigned requests (default false: they get AccessDenied). */
    public Builder allowAnonymous(boolean value) {
      once(allowAnonymous, "allowAnonymous");
      allowAnonymous = value;
      return this;
    }

    /**
     * Accept STS-style session credentials of scoped tokens minted with these keys
     * ({@link io.verglas.access.ScopedTokens#session}): a request signed with them reaches only
     * the objects its token grants. Without it (default) a request presenting a session token is
     * refused (400 InvalidToken, as S3 answers an invalid token).
     */
    public Builder scopedTokens(io.verglas.access.ScopedTokens value) {
      once(scopedTokens, "scopedTokens");
      scopedTokens = Objects.requireNonNull(value, "scopedTokens");
      return this;
    }

    /**
     * Session tokens kept verified (each at most 60 s and never past its expiry), so requests
     * with the same session credentials skip the token's signature check; default 10 000, 0 turns
     * the cache off.
     */
    public Builder sessionCacheEntries(int entries) {
      once(sessionCacheEntries, "sessionCacheEntries");
      if (entries < 0) {
        throw new IllegalArgumentException("Invalid session cache size: " + entries
            + " (must be >= 0)");
      }
      sessionCacheEntries = entries;
      return this;
    }

    /** Time source for signature checks and metadata expiry; default the UTC system clock. */
    public Builder clock(Clock value) {
      once(clock, "clock");
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Allowed difference between request time and node time; default 15 minutes. */
    public Builder maxClockSkew(Duration value) {
      once(maxClockSkew, "maxClockSkew");
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException("Invalid clock skew: " + value);
      }
      maxClockSkew = value;
      return this;
    }

    /** Largest PutObject / UploadPart body; default 5 GiB (the S3 limit). */
    public Builder maxObjectSize(long bytes) {
      once(maxObjectSize, "maxObjectSize");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid max object size: " + bytes);
      }
      maxObjectSize = bytes;
      return this;
    }

    /** Request bodies up to this size stay in memory, larger ones are spooled; default 8 MiB. */
    public Builder spoolThresholdBytes(long bytes) {
      once(spoolThresholdBytes, "spoolThresholdBytes");
      if (bytes < 0 || bytes > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("Invalid spool threshold: " + bytes);
      }
      spoolThresholdBytes = bytes;
      return this;
    }

    /** Directory for spooled request bodies; default java.io.tmpdir. */
    public Builder spoolDirectory(Path value) {
      once(spoolDirectory, "spoolDirectory");
      spoolDirectory = Objects.requireNonNull(value, "spoolDirectory");
      return this;
    }

    /**
     * How long a mutable object's ETag is trusted before it is revalidated with the origin
     * ({@code If-None-Match}); writes through this node invalidate at once. Default 2 s; zero
     * revalidates on every read. Immutable objects (see {@link #immutableObjects}) are never
     * revalidated.
     */
    public Builder metadataTtl(Duration value) {
      once(metadataTtl, "metadataTtl");
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException("Invalid metadata TTL: " + value);
      }
      metadataTtl = value;
      return this;
    }

    /**
     * Which objects are immutable and so never revalidated; default
     * {@link ImmutableObjects#icebergPaths()}. {@link ImmutableObjects#NONE} revalidates all.
     * With {@link #awareness}, objects that walked table metadata references are immutable too
     * (metadata is authoritative; this rule is the fallback).
     */
    public Builder immutableObjects(ImmutableObjects value) {
      once(immutableObjects, "immutableObjects");
      immutableObjects = Objects.requireNonNull(value, "immutableObjects");
      return this;
    }

    /**
     * Ceiling of the metadata store, which keeps Iceberg metadata objects and Parquet footers
     * apart from data blocks (no admission; data scans cannot evict them). Default 64 MiB; 0
     * disables it (they are then cached as blocks).
     */
    public Builder metadataStoreCapacityBytes(long bytes) {
      once(metadataStoreCapacityBytes, "metadataStoreCapacityBytes");
      if (bytes < 0) {
        throw new IllegalArgumentException("Invalid metadata store capacity: " + bytes + " (must be >= 0)");
      }
      metadataStoreCapacityBytes = bytes;
      return this;
    }

    /**
     * Largest metadata object or footer the metadata store keeps (larger ones are read as
     * blocks); default 8 MiB or the store's capacity if smaller.
     */
    public Builder metadataStoreMaxEntryBytes(int bytes) {
      once(metadataStoreMaxEntryBytes, "metadataStoreMaxEntryBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid metadata store entry limit: " + bytes + " (must be > 0)");
      }
      metadataStoreMaxEntryBytes = bytes;
      return this;
    }

    /**
     * Serve the admin endpoint (/health, /stats, /metrics, POST /purge) on this port, 0 for a
     * random free one; without it there is no admin endpoint.
     */
    public Builder adminPort(int value) {
      once(adminPort, "adminPort");
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("Invalid admin port: " + value + " (0..65535)");
      }
      adminPort = value;
      return this;
    }

    /** Address the admin endpoint binds; default the S3 endpoint's host. */
    public Builder adminHost(String value) {
      once(adminHost, "adminHost");
      adminHost = requireText(value, "adminHost");
      return this;
    }

    /**
     * Require {@code Authorization: Bearer <token>} on every admin endpoint but /health. Without
     * a token the admin endpoint is open: bind it to a private address.
     */
    public Builder adminToken(String value) {
      once(adminToken, "adminToken");
      adminToken = requireText(value, "adminToken");
      return this;
    }

    /**
     * Told of every request the node makes to its origin (retries included), with the bucket
     * and key it names: to count them by table, as the scale benchmark does. Default: none.
     */
    public Builder originRequests(OriginRequestListener value) {
      once(originRequests, "originRequests");
      originRequests = Objects.requireNonNull(value, "originRequests");
      return this;
    }

    /**
     * Concurrency limit, retries and circuit breaker for calls to the origin; default
     * {@link OriginProtection#defaults()}; {@link OriginProtection#disabled()} turns them off.
     */
    public Builder originProtection(OriginProtection value) {
      once(originProtection, "originProtection");
      originProtection = Objects.requireNonNull(value, "originProtection");
      return this;
    }

    /**
     * Follow a change feed and/or poll a catalog, and warm each committed table's metadata
     * (metadata file, manifest list, manifests, Parquet footers) into the caches, and treat every object that metadata
     * references as immutable; without it the node is format-blind beyond path rules.
     */
    public Builder awareness(AwarenessConfig value) {
      once(awareness, "awareness");
      awareness = Objects.requireNonNull(value, "awareness");
      return this;
    }

    /**
     * Serve an Iceberg REST catalog under {@code /catalog} over {@code value}'s catalog (clients:
     * {@code uri=<endpoint>/catalog}, {@code token=<token>}). Without it /catalog answers 501.
     */
    /**
     * Serves {@code endpoint} under its reserved path segment of the S3 port (such as the query
     * primitives under {@code /v1}); the catalog is set with {@link #catalog} instead.
     */
    public Builder service(ServiceEndpoint endpoint) {
      Objects.requireNonNull(endpoint, "endpoint");
      if (CatalogProxy.SEGMENT.equals(endpoint.segment())) {
        throw new IllegalArgumentException("Cannot add a service under /catalog: use catalog(...)");
      }
      services.add(endpoint);
      return this;
    }

    public Builder catalog(RestCatalogConfig value) {
      once(catalog, "catalog");
      catalog = Objects.requireNonNull(value, "catalog");
      return this;
    }

    /**
     * Join a cache cluster: block misses ask the block's owner (capacity-weighted rendezvous
     * over the live members) before the origin, and this node serves its own blocks to the
     * others ({@code io.verglas.cache.cluster}). Without it the node works alone.
     */
    public Builder cluster(ClusterConfig value) {
      once(cluster, "cluster");
      cluster = Objects.requireNonNull(value, "cluster");
      return this;
    }

    /**
     * Buffers the PUTs of the configured scopes as erasure-coded fragments and propagates them to
     * the origin in the background (SPEC §4c); without it every write goes through to the origin.
     * Only {@link WriteBackConfig#localFragmentStores() local} fragment stores are built.
     */
    public Builder writeBack(WriteBackConfig value) {
      once(writeBack, "writeBack");
      writeBack = Objects.requireNonNull(value, "writeBack");
      return this;
    }

    /** Also accept virtual-host style requests for hosts {@code <bucket>.<domain>}. */
    public Builder virtualHostDomain(String domain) {
      once(virtualHostDomain, "virtualHostDomain");
      virtualHostDomain = requireText(domain, "virtualHostDomain").toLowerCase(java.util.Locale.ROOT);
      return this;
    }

    /**
     * Event loop threads; default 0 = one per core (a cache hit never blocks its loop, so more
     * loops than cores only add context switches).
     */
    public Builder ioThreads(int value) {
      once(ioThreads, "ioThreads");
      if (value < 0) {
        throw new IllegalArgumentException("Invalid ioThreads: " + value);
      }
      ioThreads = value;
      return this;
    }

    /**
     * Directory of the NVMe block tier (created if missing); requires {@link #nvmeCapacityBytes}.
     * Blocks found there are served after a restart; {@link #build()} recovers their index.
     * Without it the node caches in DRAM only.
     */
    public Builder nvmeDirectory(Path value) {
      once(nvmeDirectory, "nvmeDirectory");
      nvmeDirectory = Objects.requireNonNull(value, "nvmeDirectory");
      return this;
    }

    /** Ceiling of the NVMe tier: bytes of block files (data plus a small header) on disk. */
    public Builder nvmeCapacityBytes(long bytes) {
      once(nvmeCapacityBytes, "nvmeCapacityBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid NVMe capacity: " + bytes + " (must be > 0)");
      }
      nvmeCapacityBytes = bytes;
      return this;
    }

    /** Threads that read and write NVMe block files; default 4. */
    public Builder nvmeIoThreads(int value) {
      once(nvmeIoThreads, "nvmeIoThreads");
      if (value < 1) {
        throw new IllegalArgumentException("Invalid nvmeIoThreads: " + value + " (must be >= 1)");
      }
      nvmeIoThreads = value;
      return this;
    }

    public CacheNode build() {
      if (origin == null) {
        throw new IllegalStateException("Cannot build a cache node without an origin");
      }
      boolean anonymous = allowAnonymous != null && allowAnonymous;
      if (credentials.isEmpty() && !anonymous) {
        throw new IllegalStateException(
            "Cannot build a cache node without credentials unless allowAnonymous(true)");
      }
      int block = blockSize != null ? blockSize : DEFAULT_BLOCK_SIZE;
      long dram = dramCapacityBytes != null ? dramCapacityBytes : DEFAULT_DRAM_CAPACITY;
      if (dram < block) {
        throw new IllegalStateException("Cannot build a cache node whose DRAM capacity (" + dram
            + " bytes) is smaller than one block (" + block + " bytes)");
      }
      if ((nvmeDirectory == null) != (nvmeCapacityBytes == null)) {
        throw new IllegalStateException(
            "Cannot build a cache node with only one of nvmeDirectory and nvmeCapacityBytes set");
      }
      if (nvmeCapacityBytes != null && nvmeCapacityBytes < block + 64 * 1024) {
        throw new IllegalStateException("Cannot build a cache node whose NVMe capacity ("
            + nvmeCapacityBytes + " bytes) is smaller than one block file (" + block + " bytes + header)");
      }
      long metaCapacity = metadataStoreCapacityBytes != null
          ? metadataStoreCapacityBytes : DEFAULT_METADATA_STORE_CAPACITY;
      int metaMaxEntry = (int) Math.min(metaCapacity, DEFAULT_METADATA_STORE_MAX_ENTRY);
      if (metadataStoreMaxEntryBytes != null) {
        if (metadataStoreMaxEntryBytes > metaCapacity) {
          throw new IllegalStateException("Cannot build a cache node whose metadata store entry limit ("
              + metadataStoreMaxEntryBytes + " bytes) exceeds its capacity (" + metaCapacity + " bytes)");
        }
        metaMaxEntry = metadataStoreMaxEntryBytes;
      }
      ImmutableObjects immutable = immutableObjects != null ? immutableObjects : ImmutableObjects.icebergPaths();
      Awareness aware = awareness == null ? null : Awareness.prepare(awareness, immutable);
      S3ServerConfig config = new S3ServerConfig(
          host != null ? host : "127.0.0.1",
          port != null ? port : 0,
          region != null ? region : "us-east-1",
          credentials,
          backgroundAccessKeys,
          anonymous,
          clock != null ? clock : Clock.systemUTC(),
          maxClockSkew != null ? maxClockSkew : DEFAULT_CLOCK_SKEW,
          block,
          dram,
          maxObjectSize != null ? maxObjectSize : DEFAULT_MAX_OBJECT_SIZE,
          spoolThresholdBytes != null ? spoolThresholdBytes : DEFAULT_SPOOL_THRESHOLD,
          spoolDirectory != null ? spoolDirectory : Path.of(System.getProperty("java.io.tmpdir")),
          metadataTtl != null ? metadataTtl : DEFAULT_METADATA_TTL,
          virtualHostDomain,
          ioThreads != null ? ioThreads : 0,
          nvmeDirectory,
          nvmeCapacityBytes != null ? nvmeCapacityBytes : 0,
          nvmeIoThreads != null ? nvmeIoThreads : DEFAULT_NVME_IO_THREADS,
          aware == null ? immutable : aware.immutableObjects(),
          metaCapacity,
          metaMaxEntry,
          originProtection != null ? originProtection : OriginProtection.defaults(),
          scopedTokens,
          sessionCacheEntries != null ? sessionCacheEntries : DEFAULT_SESSION_CACHE_ENTRIES);
      if (adminPort == null && (adminHost != null || adminToken != null)) {
        throw new IllegalStateException(
            "Cannot build a cache node with adminHost or adminToken but no adminPort");
      }
      if (adminPort != null && port != null && port != 0 && adminPort.equals(port)
          && (adminHost == null || adminHost.equals(config.host()))) {
        throw new IllegalStateException("Cannot build a cache node whose admin port equals its S3 port: " + port);
      }
      if (writeBack != null && (cluster != null) == writeBack.localFragmentStores()) {
        throw new IllegalStateException(cluster != null
            ? "Cannot build a cluster node with local fragment stores: the other nodes could not read its buffered "
                + "writes (leave localFragmentStores off: fragments then go to distinct members)"
            : "Cannot build a write-back node outside a cluster without local fragment stores: its k+m fragments "
                + "need k+m nodes (set localFragmentStores, or join a cluster)");
      }
      Origin observed = originRequests == null ? origin : new ObservedOrigin(origin, originRequests);
      return new CacheNode(config, observed, adminHost != null ? adminHost : config.host(), adminPort,
          adminToken, aware, catalog, services, cluster, writeBack);
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }

    private static String requireText(String value, String name) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value);
      }
      return value;
    }
  }
}
