package io.verglas.cli.local;

import io.verglas.cache.origin.OriginRequestListener;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.materializer.MaterializerConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Settings of the one-process local stack. Ports of 0 pick free ports (tests); the defaults are
 * the documented ones. Built with {@link #builder()}; {@link Builder#apply(Properties)} reads a
 * config file's {@code local.*} keys so flags can override them afterwards.
 */
public final class LocalConfig {
  public static final int DEFAULT_S3_PORT = 9100;
  public static final int DEFAULT_FLIGHT_PORT = 8815;
  public static final int DEFAULT_ADMIN_PORT = 9101;
  public static final int MAX_NODES = 16;
  /** The worker scheduler's PostgreSQL database, used when reachable. */
  public static final String WORKERS_JDBC_URL_DEFAULT =
      "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  public static final String WORKERS_SCHEMA_DEFAULT = "verglas_workers";

  private final Path dataDir;
  private final String host;
  private final int s3Port;
  private final int flightPort;
  private final int adminPort;
  private final String bucket;
  private final String region;
  private final Duration checkpointInterval;
  private final long dramCacheBytes;
  private final int parallelism;
  private final int committerParallelism;
  private final String catalogUri;
  private final OriginSpec origin;
  private final int nodes;
  private final URI flinkCluster;
  private final OriginRequestListener originRequests;
  private final String workersJdbcUrl;
  private final String workersSchema;
  private final List<String> writeBackPrefixes;
  private final Map<String, UnaryOperator<WriteBackConfig.Builder>> writeBackSettings;

  private LocalConfig(Builder b) {
    this.dataDir = b.dataDir.toAbsolutePath().normalize();
    this.host = b.host;
    this.s3Port = b.s3Port;
    this.flightPort = b.flightPort;
    this.adminPort = b.adminPort;
    this.origin = b.origin;
    this.nodes = b.nodes;
    // an Azure origin's container is the bucket: S3 buckets are its containers
    this.bucket = b.origin.bucket().orElse(b.bucket);
    this.region = b.region;
    this.checkpointInterval = b.checkpointInterval;
    this.dramCacheBytes = b.dramCacheBytes;
    this.parallelism = b.parallelism;
    this.committerParallelism = b.committerParallelism;
    this.catalogUri = b.catalogUri;
    this.flinkCluster = b.flinkCluster;
    this.originRequests = b.originRequests;
    this.workersJdbcUrl = b.workersJdbcUrl;
    this.workersSchema = b.workersSchema;
    this.writeBackPrefixes = b.writeBackPrefixes;
    this.writeBackSettings = Map.copyOf(b.writeBackSettings);
    checkWriteBack(!writeBackSettings.isEmpty());
  }

  private void checkWriteBack(boolean codeGiven) {
    if (writeBackPrefixes.isEmpty()) {
      if (codeGiven) {
        throw new IllegalArgumentException("Cannot set write-back's code without a write-back prefix "
            + "(--write-back-prefix or local.write-back-prefixes): write-back is off; "
            + String.join(", ", new TreeSet<>(writeBackSettings.keySet())) + " given");
      }
      return;
    }
    WriteBackConfig first;
    try {
      first = writeBack(0);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException("Cannot enable write-back: " + e.getMessage(), e);
    }
    if (nodes > 1 && first.ackFragments() > nodes) {
      throw new IllegalArgumentException("Cannot enable write-back with w=" + first.ackFragments() + " on " + nodes
          + " cache nodes: a write is acknowledged once w nodes hold a fragment each; use at least w nodes");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public Path dataDir() { return dataDir; }
  public String host() { return host; }
  public int s3Port() { return s3Port; }
  /** Cache nodes, forming a cache cluster when more than one (ports from the S3 port up). */
  public int nodes() { return nodes; }
  public int flightPort() { return flightPort; }
  public int adminPort() { return adminPort; }
  public String bucket() { return bucket; }
  public String region() { return region; }
  public Duration checkpointInterval() { return checkpointInterval; }
  public long dramCacheBytes() { return dramCacheBytes; }
  public int parallelism() { return parallelism; }
  /** The materializer's committer subtasks (tables keyed across them). */
  public int committerParallelism() { return committerParallelism; }
  public OriginSpec origin() { return origin; }
  /** The session cluster the jobs are submitted to, or null: each on a MiniCluster of its own. */
  public URI flinkCluster() { return flinkCluster; }

  /** The JDBC catalog's URI: a PostgreSQL database when configured, else SQLite in the data directory. */
  public String catalogUri() {
    return catalogUri != null ? catalogUri : "jdbc:sqlite:" + catalogDb();
  }

  /** The worker scheduler's PostgreSQL JDBC URL, or null: the stack runs no workers. */
  public String workersJdbcUrl() { return workersJdbcUrl; }
  /** The schema of the worker scheduler's queue tables. */
  public String workersSchema() { return workersSchema; }

  /**
   * Cache node {@code node}'s write-back (from 0; default k=2, m=1, w=3), or null: off, the
   * default. Its fragments and journal are in {@code DIR/writeback} for the first node, {@code
   * DIR/writeback-N} for node N from 2. One node keeps all {@code k + m} fragments of a write in
   * its directory; in a cluster each node holds at most one.
   */
  public WriteBackConfig writeBack(int node) {
    if (writeBackPrefixes.isEmpty()) {
      return null;
    }
    WriteBackConfig.Builder config = WriteBackConfig.builder()
        .directory(dataDir.resolve(node == 0 ? "writeback" : "writeback-" + (node + 1)))
        .localFragmentStores(nodes == 1);
    writeBackPrefixes.forEach(prefix -> config.enable(bucket, prefix));
    new TreeMap<>(writeBackSettings).forEach((name, setting) -> {
      try {
        setting.apply(config);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
      }
    });
    return config.build();
  }

  /** Told of every request the cache nodes make to the origin (benchmarks count them by table). */
  public OriginRequestListener originRequests() { return originRequests; }

  /** The objects' directory when the origin is {@code local}. */
  public Path originDir() { return dataDir.resolve("origin"); }
  public Path catalogDb() { return dataDir.resolve("catalog.db"); }
  public Path checkpointDir() { return dataDir.resolve("checkpoints"); }
  /** With a Flink session cluster: the path of the savepoint the materializer last stopped with. */
  public Path clusterSavepointFile() { return dataDir.resolve("materializer-savepoint"); }
  public Path eventsFile() { return dataDir.resolve("events.jsonl"); }
  public Path endpointsFile() { return dataDir.resolve("endpoints.json"); }
  public Path credentialsFile() { return dataDir.resolve("credentials.json"); }
  /** Files of the running stack only (Flink's, RocksDB's, staging): emptied at start and stop. */
  public Path tmpDir() { return dataDir.resolve("tmp"); }

  /** Builder; each setter validates its value. */
  public static final class Builder {
    private Path dataDir = Path.of(".verglas");
    private String host = "127.0.0.1";
    private int s3Port = DEFAULT_S3_PORT;
    private int flightPort = DEFAULT_FLIGHT_PORT;
    private int adminPort = DEFAULT_ADMIN_PORT;
    private String bucket = "warehouse";
    private String region = "us-east-1";
    private Duration checkpointInterval = Duration.ofSeconds(2);
    private long dramCacheBytes = 512L << 20;
    private int parallelism = 2;
    private int committerParallelism = MaterializerConfig.COMMITTER_PARALLELISM_DEFAULT;
    private String catalogUri;
    private OriginSpec origin = new OriginSpec.Local();
    private int nodes = 1;
    private URI flinkCluster;
    private OriginRequestListener originRequests = OriginRequestListener.NONE;
    private String workersJdbcUrl = WORKERS_JDBC_URL_DEFAULT;
    private String workersSchema = WORKERS_SCHEMA_DEFAULT;
    private List<String> writeBackPrefixes = List.of();
    private final Map<String, UnaryOperator<WriteBackConfig.Builder>> writeBackSettings = new HashMap<>();

    public Builder dataDir(Path dir) { this.dataDir = Objects.requireNonNull(dir, "dataDir"); return this; }
    public Builder host(String value) { this.host = Objects.requireNonNull(value, "host"); return this; }
    public Builder s3Port(int port) { this.s3Port = port(port, "S3"); return this; }
    public Builder flightPort(int port) { this.flightPort = port(port, "Flight"); return this; }
    public Builder adminPort(int port) { this.adminPort = port(port, "admin"); return this; }
    public Builder bucket(String value) { this.bucket = Objects.requireNonNull(value, "bucket"); return this; }
    /** {@code local} or {@code azure://ACCOUNT/CONTAINER[?endpoint=URL]} (see {@link OriginSpec}). */
    public Builder origin(String value) { this.origin = OriginSpec.parse(value); return this; }
    public Builder region(String value) { this.region = Objects.requireNonNull(value, "region"); return this; }

    public Builder checkpointInterval(Duration interval) {
      if (interval.toMillis() < 100) {
        throw new IllegalArgumentException("Invalid checkpoint interval: " + interval + " (at least 100 ms)");
      }
      this.checkpointInterval = interval;
      return this;
    }

    public Builder dramCacheBytes(long bytes) {
      if (bytes < (16L << 20)) {
        throw new IllegalArgumentException("Invalid DRAM cache size: " + bytes + " (at least 16 MiB)");
      }
      this.dramCacheBytes = bytes;
      return this;
    }

    public Builder nodes(int value) {
      if (value < 1 || value > MAX_NODES) {
        throw new IllegalArgumentException("Invalid number of cache nodes: " + value + " (1.."
            + MAX_NODES + ")");
      }
      this.nodes = value;
      return this;
    }

    public Builder parallelism(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid parallelism: " + value);
      }
      this.parallelism = value;
      return this;
    }

    public Builder committerParallelism(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid committer parallelism: " + value);
      }
      this.committerParallelism = value;
      return this;
    }

    /**
     * The Iceberg JDBC catalog's database: {@code jdbc:postgresql://host:port/db?user=...} for
     * many tables, or {@code jdbc:sqlite:FILE}; default SQLite in the data directory.
     */
    public Builder catalogUri(String uri) {
      Objects.requireNonNull(uri, "catalogUri");
      if (!uri.startsWith("jdbc:postgresql:") && !uri.startsWith("jdbc:sqlite:")) {
        throw new IllegalArgumentException("Cannot use catalog URI " + uri
            + ": only jdbc:postgresql: and jdbc:sqlite: databases are supported");
      }
      this.catalogUri = uri;
      return this;
    }

    /** Run the jobs on this Flink session cluster (its REST API's URL) instead of MiniClusters. */
    public Builder flinkCluster(URI restUrl) {
      Objects.requireNonNull(restUrl, "flinkCluster");
      if (!"http".equals(restUrl.getScheme()) && !"https".equals(restUrl.getScheme())) {
        throw new IllegalArgumentException("Invalid Flink cluster URL: " + restUrl
            + " (its REST API's http:// or https:// URL)");
      }
      this.flinkCluster = restUrl;
      return this;
    }

    /**
     * The worker scheduler's database: a {@code jdbc:postgresql:} URL (credentials as its
     * parameters), used when reachable at start; {@code none} runs no workers.
     */
    public Builder workersJdbcUrl(String url) {
      Objects.requireNonNull(url, "workersJdbcUrl");
      if (url.equals("none")) {
        this.workersJdbcUrl = null;
        return this;
      }
      if (!url.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException("Cannot use workers database " + url
            + ": only jdbc:postgresql: URLs (or none)");
      }
      this.workersJdbcUrl = url;
      return this;
    }

    /** Buffers the PUTs of the bucket's keys with these prefixes ("" for every key); empty: none, the default. */
    public Builder writeBackPrefixes(List<String> prefixes) {
      this.writeBackPrefixes = List.copyOf(prefixes);
      return this;
    }

    /**
     * Applied to each node's write-back settings: what a test tunes (as a setting named {@code
     * code}); default k=2, m=1, w=3.
     */
    public Builder writeBackCode(UnaryOperator<WriteBackConfig.Builder> code) {
      return writeBackSetting("code", code);
    }

    /**
     * One of the write-back settings applied to each node's ({@code k}, {@code m}, {@code w}, the
     * fragment ceiling, the orphan grace period), by name: a {@code local.} key's without the
     * prefix, a flag's without the dashes ({@link io.verglas.cli.cachenode.WriteBackFlags#settings()});
     * a later one of the same name replaces the earlier, so a flag overrides its key.
     */
    public Builder writeBackSetting(String name, UnaryOperator<WriteBackConfig.Builder> setting) {
      writeBackSettings.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(setting, "setting"));
      return this;
    }

    /** The schema of the scheduler's tables (a lower-case identifier). */
    public Builder workersSchema(String schema) {
      Objects.requireNonNull(schema, "workersSchema");
      if (!schema.matches("[a-z_][a-z0-9_]{0,47}")) {
        throw new IllegalArgumentException("Cannot use workers schema '" + schema
            + "': a lower-case identifier of at most 48 characters");
      }
      this.workersSchema = schema;
      return this;
    }

    /** Not a flag: for benchmarks and tests that count the origin requests (default none). */
    public Builder originRequests(OriginRequestListener listener) {
      this.originRequests = Objects.requireNonNull(listener, "originRequests");
      return this;
    }

    /** Applies the {@code local.*} keys of a config file ({@link LocalSettings#STACK}). */
    public Builder apply(Properties props) {
      LocalSettings.STACK.applyProperties(this, props, LocalSettings.PREFIX);
      return this;
    }

    public LocalConfig build() {
      return new LocalConfig(this);
    }

    private static int port(int port, String what) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("Invalid " + what + " port: " + port);
      }
      return port;
    }
  }
}
