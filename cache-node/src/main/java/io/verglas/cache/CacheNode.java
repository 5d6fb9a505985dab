package io.verglas.cache;

import io.verglas.cache.block.BlockCache;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.s3.S3Server;
import io.verglas.cache.s3.S3ServerConfig;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A cache node: an S3-compatible HTTP endpoint in front of one {@link Origin}, serving object
 * reads through a block cache.
 *
 * <pre>{@code
 * try (CacheNode node = CacheNode.builder()
 *     .credentials("access", "secret")
 *     .origin(new LocalDirectoryOrigin(dir))
 *     .build()
 *     .start()) {
 *   URI endpoint = node.endpoint();   // http://127.0.0.1:<port>, path-style
 * }
 * }</pre>
 *
 * The node does not own the origin: close the origin after the node.
 */
public final class CacheNode implements AutoCloseable {
  public static final int MIB = 1024 * 1024;
  public static final int DEFAULT_BLOCK_SIZE = 2 * MIB;
  public static final int MIN_BLOCK_SIZE = MIB;
  public static final int MAX_BLOCK_SIZE = 8 * MIB;
  public static final long DEFAULT_DRAM_CAPACITY = 256L * MIB;
  public static final long DEFAULT_MAX_OBJECT_SIZE = 5L * 1024 * MIB;
  public static final long DEFAULT_SPOOL_THRESHOLD = 8L * MIB;
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofMinutes(15);
  public static final Duration DEFAULT_METADATA_TTL = Duration.ofSeconds(2);

  private final S3ServerConfig config;
  private final S3Server server;
  private int port = -1;
  private boolean closed;

  private CacheNode(S3ServerConfig config, Origin origin) {
    this.config = config;
    this.server = new S3Server(config, origin);
  }

  public static Builder builder() {
    return new Builder();
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
    return this;
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
    String host = config.host();
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
    return URI.create("http://" + host + ":" + port());
  }

  public String region() {
    return config.region();
  }

  public CacheStats stats() {
    BlockCache blocks = server.blockCache();
    return new CacheStats(
        blocks.hits(),
        blocks.misses(),
        blocks.coalesced(),
        server.bytesServedFromCache(),
        blocks.fills(),
        blocks.evictions(),
        server.originRequests(),
        blocks.dramBytes(),
        blocks.dramCapacityBytes());
  }

  /** Stops serving and releases the event loops and cached blocks; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.close();
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
    private Origin origin;
    private Integer blockSize;
    private Long dramCapacityBytes;
    private Boolean allowAnonymous;
    private Clock clock;
    private Duration maxClockSkew;
    private Long maxObjectSize;
    private Long spoolThresholdBytes;
    private Path spoolDirectory;
    private Duration metadataTtl;
    private String virtualHostDomain;
    private Integer ioThreads;

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
     * How long a key's ETag is trusted without asking the origin; writes through this node
     * invalidate at once. Default 2 s; zero disables the metadata cache.
     */
    public Builder metadataTtl(Duration value) {
      once(metadataTtl, "metadataTtl");
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException("Invalid metadata TTL: " + value);
      }
      metadataTtl = value;
      return this;
    }

    /** Also accept virtual-host style requests for hosts {@code <bucket>.<domain>}. */
    public Builder virtualHostDomain(String domain) {
      once(virtualHostDomain, "virtualHostDomain");
      virtualHostDomain = requireText(domain, "virtualHostDomain").toLowerCase(java.util.Locale.ROOT);
      return this;
    }

    /** Event loop threads; default 0 = Netty's default (2 x cores). */
    public Builder ioThreads(int value) {
      once(ioThreads, "ioThreads");
      if (value < 0) {
        throw new IllegalArgumentException("Invalid ioThreads: " + value);
      }
      ioThreads = value;
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
      S3ServerConfig config = new S3ServerConfig(
          host != null ? host : "127.0.0.1",
          port != null ? port : 0,
          region != null ? region : "us-east-1",
          credentials,
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
          ioThreads != null ? ioThreads : 0);
      return new CacheNode(config, origin);
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
