package io.verglas.cache.awareness;

import io.verglas.catalog.MetadataLocations;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;

/**
 * Settings of a cache node's Iceberg awareness: which change feed to follow, where to remember
 * its position, which catalog to poll for commits the feed does not carry, and the budgets of
 * metadata warming. Built and validated by {@link #builder()}; each setting may be set once (a
 * second call is an IllegalStateException), bad values are IllegalArgumentExceptions naming the
 * value. Required: {@link Builder#feedUri} or {@link Builder#catalog} (or both).
 *
 * <pre>{@code
 * CacheNode.builder()
 *     ...
 *     .awareness(AwarenessConfig.builder()
 *         .feedUri(URI.create("http://127.0.0.1:9092/events"))
 *         .feedToken(token)                      // when the feed requires a bearer token
 *         .stateDirectory(Path.of("/var/lib/verglas/watcher"))
 *         .warmBytesPerSecond(32L << 20)
 *         .catalog(() -> catalog)                // poll for other engines' commits
 *         .build())
 * }</pre>
 *
 * @param feedUri the change feed's events resource ({@code GET <uri>?from=N&follow=true});
 *     a query in it (a table or namespace filter) turns gap detection off; null: no feed
 * @param feedToken sent as {@code Authorization: Bearer <token>}, or null
 * @param stateDirectory where the watcher keeps its feed position and known tables and the heat
 *     ledger is saved, or null (then each start begins at the feed's end and warms the tables
 *     the feed retains, and heat starts cold)
 * @param warmBytesPerSecond origin bytes per second metadata warming may read, on average
 * @param warmConcurrency origin reads warming may have in flight at once
 * @param tableBudgetBytes metadata bytes (metadata file, manifest list, manifests, footers) one
 *     table may occupy; a table above it is not warmed until a retry finds it under
 * @param tableBudgetRetry how long a table over its budget waits before a commit walks it again
 *     to see whether it fits now (the wait doubles after each retry that does not fit, up to 16
 *     times this); one that fits is warmed again
 * @param warmQueueCapacity tables that may wait for a walk; commits of further tables are dropped
 * @param immutableKeys keys learned as immutable from metadata that are remembered (0: none)
 * @param maxTables walked tables the watcher remembers by name (with their latest metadata) for
 *     startup walks; every table seen is known by hash besides (at most
 *     {@code KnownTables.MAX_KNOWN}), so this bounds startup walks, not what a poll considers
 * @param reconnectMinBackoff first wait before reconnecting to the feed
 * @param reconnectMaxBackoff longest wait between reconnection attempts
 * @param feedIdleTimeout a connection silent this long (not even a heartbeat) is reconnected;
 *     must exceed the feed's heartbeat interval
 * @param listener told of each handled event
 * @param prefetch whether a replace commit (a compaction) prefetches the hot column chunks of
 *     its replacement files
 * @param prefetchBytesPerCommit bytes (whole cache blocks) one commit's prefetch may read
 * @param prefetchMinHeat the heat a (partition, column) needs to be prefetched (1 = about one
 *     read within the last half-life)
 * @param heatHalfLife how long it takes a coordinate's heat to halve
 * @param heatMaxEntries (table, partition, column) coordinates the heat ledger keeps
 * @param heatSampleBuffer classified reads buffered between the request path and the ledger;
 *     reads beyond it are dropped and counted
 * @param heatSaveInterval with a {@code stateDirectory}, how often the heat ledger is saved there
 *     (and on close), so a restarted node still knows the hot columns
 * @param heatSaveMaxEntries coordinates saved (the hottest); the rest are forgotten by a restart
 * @param indexMaxChunks column chunks the mapper's index holds over all files (a data file
 *     without column structure counts as none); files beyond are not classified
 * @param catalog the catalog polled for commits the feed does not carry (other engines'), or
 *     null (no polling); it may return null while the catalog does not exist yet
 * @param metadataLocations where a poll reads every table's metadata location at once (a JDBC
 *     catalog's table), instead of loading each table; null: tables are loaded one by one
 * @param pollInterval the pause between the end of one poll of the catalog and the next
 * @param pollTablesPerSecond table loads a poll may make per second, on average
 */
public record AwarenessConfig(
    URI feedUri,
    String feedToken,
    Path stateDirectory,
    long warmBytesPerSecond,
    int warmConcurrency,
    long tableBudgetBytes,
    Duration tableBudgetRetry,
    int warmQueueCapacity,
    int immutableKeys,
    int maxTables,
    Duration reconnectMinBackoff,
    Duration reconnectMaxBackoff,
    Duration feedIdleTimeout,
    FeedListener listener,
    boolean prefetch,
    long prefetchBytesPerCommit,
    double prefetchMinHeat,
    Duration heatHalfLife,
    int heatMaxEntries,
    int heatSampleBuffer,
    Duration heatSaveInterval,
    int heatSaveMaxEntries,
    long indexMaxChunks,
    Supplier<Catalog> catalog,
    Supplier<MetadataLocations> metadataLocations,
    Duration pollInterval,
    int pollTablesPerSecond) {

  public static final long DEFAULT_WARM_BYTES_PER_SECOND = 32L << 20;
  public static final int DEFAULT_WARM_CONCURRENCY = 4;
  public static final long DEFAULT_TABLE_BUDGET_BYTES = 64L << 20;
  public static final Duration DEFAULT_TABLE_BUDGET_RETRY = Duration.ofMinutes(10);
  public static final int DEFAULT_WARM_QUEUE_CAPACITY = 1024;
  public static final int DEFAULT_IMMUTABLE_KEYS = 100_000;
  public static final int DEFAULT_MAX_TABLES = 10_000;
  public static final Duration DEFAULT_RECONNECT_MIN_BACKOFF = Duration.ofMillis(100);
  public static final Duration DEFAULT_RECONNECT_MAX_BACKOFF = Duration.ofSeconds(30);
  public static final Duration DEFAULT_FEED_IDLE_TIMEOUT = Duration.ofSeconds(60);
  public static final long DEFAULT_PREFETCH_BYTES_PER_COMMIT = 256L << 20;
  public static final double DEFAULT_PREFETCH_MIN_HEAT = 0.5;
  public static final Duration DEFAULT_HEAT_HALF_LIFE = Duration.ofHours(1);
  public static final int DEFAULT_HEAT_MAX_ENTRIES = 100_000;
  public static final int DEFAULT_HEAT_SAMPLE_BUFFER = 8192;
  public static final Duration DEFAULT_HEAT_SAVE_INTERVAL = Duration.ofSeconds(30);
  public static final int DEFAULT_HEAT_SAVE_MAX_ENTRIES = 10_000;
  public static final long DEFAULT_INDEX_MAX_CHUNKS = 2_000_000;
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(10);
  public static final int DEFAULT_POLL_TABLES_PER_SECOND = 20;

  public AwarenessConfig {
    if (feedUri == null && catalog == null) {
      throw new IllegalArgumentException("Cannot configure awareness without a feed URI or a catalog to poll");
    }
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(reconnectMinBackoff, "reconnectMinBackoff");
    Objects.requireNonNull(reconnectMaxBackoff, "reconnectMaxBackoff");
    Objects.requireNonNull(feedIdleTimeout, "feedIdleTimeout");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(heatHalfLife, "heatHalfLife");
    Objects.requireNonNull(heatSaveInterval, "heatSaveInterval");
    Objects.requireNonNull(tableBudgetRetry, "tableBudgetRetry");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The settings without the token's value. */
  @Override
  public String toString() {
    return "AwarenessConfig[feedUri=" + feedUri + ", feedToken=" + (feedToken == null ? "none" : "(set)")
        + ", stateDirectory=" + stateDirectory + ", warmBytesPerSecond=" + warmBytesPerSecond
        + ", warmConcurrency=" + warmConcurrency + ", tableBudgetBytes=" + tableBudgetBytes
        + ", tableBudgetRetry=" + tableBudgetRetry + ", warmQueueCapacity=" + warmQueueCapacity
        + ", immutableKeys=" + immutableKeys
        + ", maxTables=" + maxTables + ", reconnectBackoff=" + reconnectMinBackoff + ".."
        + reconnectMaxBackoff + ", feedIdleTimeout=" + feedIdleTimeout + ", prefetch=" + prefetch
        + ", prefetchBytesPerCommit=" + prefetchBytesPerCommit + ", prefetchMinHeat=" + prefetchMinHeat
        + ", heatHalfLife=" + heatHalfLife + ", heatMaxEntries=" + heatMaxEntries
        + ", heatSampleBuffer=" + heatSampleBuffer + ", heatSaveInterval=" + heatSaveInterval
        + ", heatSaveMaxEntries=" + heatSaveMaxEntries + ", indexMaxChunks=" + indexMaxChunks
        + ", catalog=" + (catalog == null ? "none" : "(set)") + ", metadataLocations="
        + (metadataLocations == null ? "none" : "(set)") + ", pollInterval=" + pollInterval
        + ", pollTablesPerSecond=" + pollTablesPerSecond + "]";
  }

  /** Whether the feed URI filters events (then sequences legitimately skip). */
  boolean feedFiltered() {
    return feedUri != null && feedUri.getRawQuery() != null && !feedUri.getRawQuery().isEmpty();
  }

  /** See {@link AwarenessConfig}. */
  public static final class Builder {
    private URI feedUri;
    private String feedToken;
    private Path stateDirectory;
    private Long warmBytesPerSecond;
    private Integer warmConcurrency;
    private Long tableBudgetBytes;
    private Duration tableBudgetRetry;
    private Integer warmQueueCapacity;
    private Integer immutableKeys;
    private Integer maxTables;
    private Duration reconnectMinBackoff;
    private Duration reconnectMaxBackoff;
    private Duration feedIdleTimeout;
    private FeedListener listener;
    private Boolean prefetch;
    private Long prefetchBytesPerCommit;
    private Double prefetchMinHeat;
    private Duration heatHalfLife;
    private Integer heatMaxEntries;
    private Integer heatSampleBuffer;
    private Duration heatSaveInterval;
    private Integer heatSaveMaxEntries;
    private Long indexMaxChunks;
    private Supplier<Catalog> catalog;
    private Supplier<MetadataLocations> metadataLocations;
    private Duration pollInterval;
    private Integer pollTablesPerSecond;

    private Builder() {}

    /** The change feed's events resource, http or https. */
    public Builder feedUri(URI value) {
      once(feedUri, "feedUri");
      Objects.requireNonNull(value, "feedUri");
      String scheme = value.getScheme() == null ? "" : value.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https") || value.getHost() == null) {
        throw new IllegalArgumentException("Invalid feed URI: " + value + " (expected http(s)://host:port/events)");
      }
      feedUri = value;
      return this;
    }

    public Builder feedToken(String value) {
      if (feedToken != null) {
        throw new IllegalStateException("feedToken was already set");
      }
      if (value == null || value.isBlank() || value.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
        throw new IllegalArgumentException("Invalid feed token: must be non-blank printable ASCII");
      }
      feedToken = value;
      return this;
    }

    public Builder stateDirectory(Path value) {
      once(stateDirectory, "stateDirectory");
      stateDirectory = Objects.requireNonNull(value, "stateDirectory");
      return this;
    }

    public Builder warmBytesPerSecond(long value) {
      once(warmBytesPerSecond, "warmBytesPerSecond");
      warmBytesPerSecond = positive(value, "warm bytes per second");
      return this;
    }

    public Builder warmConcurrency(int value) {
      once(warmConcurrency, "warmConcurrency");
      warmConcurrency = (int) positive(value, "warm concurrency");
      return this;
    }

    public Builder tableBudgetBytes(long value) {
      once(tableBudgetBytes, "tableBudgetBytes");
      tableBudgetBytes = positive(value, "table budget");
      return this;
    }

    /** How long a table over its budget waits before it is walked again; default 10 min. */
    public Builder tableBudgetRetry(Duration value) {
      once(tableBudgetRetry, "tableBudgetRetry");
      tableBudgetRetry = positive(value, "table budget retry");
      return this;
    }

    public Builder warmQueueCapacity(int value) {
      once(warmQueueCapacity, "warmQueueCapacity");
      warmQueueCapacity = (int) positive(value, "warm queue capacity");
      return this;
    }

    public Builder immutableKeys(int value) {
      once(immutableKeys, "immutableKeys");
      if (value < 0) {
        throw new IllegalArgumentException("Invalid immutable key limit: " + value + " (must be >= 0)");
      }
      immutableKeys = value;
      return this;
    }

    public Builder maxTables(int value) {
      once(maxTables, "maxTables");
      maxTables = (int) positive(value, "table limit");
      return this;
    }

    public Builder reconnectBackoff(Duration min, Duration max) {
      once(reconnectMinBackoff, "reconnectBackoff");
      positive(min, "minimum reconnect backoff");
      positive(max, "maximum reconnect backoff");
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException("Invalid reconnect backoff: maximum " + max + " < minimum " + min);
      }
      reconnectMinBackoff = min;
      reconnectMaxBackoff = max;
      return this;
    }

    public Builder feedIdleTimeout(Duration value) {
      once(feedIdleTimeout, "feedIdleTimeout");
      feedIdleTimeout = positive(value, "feed idle timeout");
      return this;
    }

    public Builder listener(FeedListener value) {
      once(listener, "listener");
      listener = Objects.requireNonNull(value, "listener");
      return this;
    }

    /** Whether compactions prefetch their replacement files' hot chunks; default true. */
    public Builder prefetch(boolean value) {
      once(prefetch, "prefetch");
      prefetch = value;
      return this;
    }

    public Builder prefetchBytesPerCommit(long value) {
      once(prefetchBytesPerCommit, "prefetchBytesPerCommit");
      prefetchBytesPerCommit = positive(value, "prefetch bytes per commit");
      return this;
    }

    public Builder prefetchMinHeat(double value) {
      once(prefetchMinHeat, "prefetchMinHeat");
      if (!(value > 0) || Double.isInfinite(value)) {
        throw new IllegalArgumentException("Invalid prefetch minimum heat: " + value + " (must be > 0)");
      }
      prefetchMinHeat = value;
      return this;
    }

    public Builder heatHalfLife(Duration value) {
      once(heatHalfLife, "heatHalfLife");
      heatHalfLife = positive(value, "heat half-life");
      return this;
    }

    public Builder heatMaxEntries(int value) {
      once(heatMaxEntries, "heatMaxEntries");
      heatMaxEntries = (int) positive(value, "heat ledger size");
      return this;
    }

    public Builder heatSampleBuffer(int value) {
      once(heatSampleBuffer, "heatSampleBuffer");
      if (value <= 0 || value > 1 << 24) {
        throw new IllegalArgumentException("Invalid heat sample buffer: " + value + " (must be 1.." + (1 << 24) + ")");
      }
      heatSampleBuffer = value;
      return this;
    }

    /** How often the heat ledger is saved to the state directory (and on close); default 30 s. */
    public Builder heatSaveInterval(Duration value) {
      once(heatSaveInterval, "heatSaveInterval");
      heatSaveInterval = positive(value, "heat save interval");
      return this;
    }

    /** Heat coordinates saved, the hottest first; default 10 000. */
    public Builder heatSaveMaxEntries(int value) {
      once(heatSaveMaxEntries, "heatSaveMaxEntries");
      heatSaveMaxEntries = (int) positive(value, "heat save size");
      return this;
    }

    public Builder indexMaxChunks(long value) {
      once(indexMaxChunks, "indexMaxChunks");
      indexMaxChunks = positive(value, "index chunk limit");
      return this;
    }

    /**
     * Polls this catalog (JDBC or REST, any {@link Catalog}) for commits the feed does not carry;
     * the supplier may return null while the catalog does not exist yet (it is asked each poll).
     */
    public Builder catalog(Supplier<Catalog> value) {
      once(catalog, "catalog");
      catalog = Objects.requireNonNull(value, "catalog");
      return this;
    }

    /**
     * Where a poll reads every table's metadata location in one pass ({@link
     * io.verglas.catalog.JdbcMetadataLocations} for a JDBC catalog): a poll then costs one
     * listing, and only tables whose location changed are loaded and walked. The supplier may
     * return null while the source does not exist yet; polls then load tables one by one.
     */
    public Builder metadataLocations(Supplier<MetadataLocations> value) {
      once(metadataLocations, "metadataLocations");
      metadataLocations = Objects.requireNonNull(value, "metadataLocations");
      return this;
    }

    public Builder pollInterval(Duration value) {
      once(pollInterval, "pollInterval");
      pollInterval = positive(value, "poll interval");
      return this;
    }

    public Builder pollTablesPerSecond(int value) {
      once(pollTablesPerSecond, "pollTablesPerSecond");
      pollTablesPerSecond = (int) positive(value, "poll tables per second");
      return this;
    }

    public AwarenessConfig build() {
      if (feedUri == null && catalog == null) {
        throw new IllegalStateException("Cannot build awareness settings without a feed URI or a catalog to poll");
      }
      return new AwarenessConfig(feedUri, feedToken, stateDirectory,
          or(warmBytesPerSecond, DEFAULT_WARM_BYTES_PER_SECOND),
          or(warmConcurrency, DEFAULT_WARM_CONCURRENCY),
          or(tableBudgetBytes, DEFAULT_TABLE_BUDGET_BYTES),
          or(tableBudgetRetry, DEFAULT_TABLE_BUDGET_RETRY),
          or(warmQueueCapacity, DEFAULT_WARM_QUEUE_CAPACITY),
          or(immutableKeys, DEFAULT_IMMUTABLE_KEYS),
          or(maxTables, DEFAULT_MAX_TABLES),
          or(reconnectMinBackoff, DEFAULT_RECONNECT_MIN_BACKOFF),
          or(reconnectMaxBackoff, DEFAULT_RECONNECT_MAX_BACKOFF),
          or(feedIdleTimeout, DEFAULT_FEED_IDLE_TIMEOUT),
          or(listener, FeedListener.NONE),
          or(prefetch, true),
          or(prefetchBytesPerCommit, DEFAULT_PREFETCH_BYTES_PER_COMMIT),
          or(prefetchMinHeat, DEFAULT_PREFETCH_MIN_HEAT),
          or(heatHalfLife, DEFAULT_HEAT_HALF_LIFE),
          or(heatMaxEntries, DEFAULT_HEAT_MAX_ENTRIES),
          or(heatSampleBuffer, DEFAULT_HEAT_SAMPLE_BUFFER),
          or(heatSaveInterval, DEFAULT_HEAT_SAVE_INTERVAL),
          or(heatSaveMaxEntries, DEFAULT_HEAT_SAVE_MAX_ENTRIES),
          or(indexMaxChunks, DEFAULT_INDEX_MAX_CHUNKS),
          catalog,
          metadataLocations,
          or(pollInterval, DEFAULT_POLL_INTERVAL),
          or(pollTablesPerSecond, DEFAULT_POLL_TABLES_PER_SECOND));
    }

    private static <T> T or(T value, T fallback) {
      return value != null ? value : fallback;
    }

    private static long positive(long value, String name) {
      if (value <= 0) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be > 0)");
      }
      return value;
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be > 0)");
      }
      return value;
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }
  }
}
