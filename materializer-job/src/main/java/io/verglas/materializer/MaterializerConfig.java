package io.verglas.materializer;

import io.verglas.catalog.Catalogs;
import io.verglas.events.EventPublisher;
import io.verglas.events.HttpEventPublisher;
import io.verglas.events.publish.DurableOutbox;
import io.verglas.materializer.delta.IntervalStaging;
import io.verglas.materializer.store.S3WalStore;
import io.verglas.materializer.store.WalStore;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.util.function.SerializableSupplier;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;

/**
 * Everything the materializer job needs: where the catalog is, where the WAL is, where events
 * go and how often to checkpoint. Immutable and serializable, so operators carry it to the task
 * managers and build their clients there.
 *
 * <p>Command-line form ({@link #fromArgs}): the arguments {@link MaterializerSettings} declares
 * (listed with their defaults in docs/configuration.md).
 */
public final class MaterializerConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String CATALOG_NAME_DEFAULT = "verglas";
  public static final Duration CHECKPOINT_INTERVAL_DEFAULT = Duration.ofSeconds(2);
  public static final Duration DISCOVERY_INTERVAL_DEFAULT = Duration.ofMillis(500);
  public static final long WRITER_BUFFER_BYTES_DEFAULT = 128L << 20;
  /**
   * Tables with an open interval per writer subtask: beyond it, the least recently written one
   * ends early (its files join the checkpoint as they are).
   */
  public static final int WRITER_MAX_OPEN_TABLES_DEFAULT = 1024;
  /**
   * What a data file whose Parquet writer is open holds besides its rows, counted in the byte
   * bound: a compression buffer of a page and a bloom filter per key column, 1 MB each by
   * default, which G1 gives a region of 2 MB each (measured: 4.2 MB per file with a key column).
   */
  public static final long WRITER_OPEN_FILE_BYTES_DEFAULT = 4L << 20;
  /** Key index entries cached on the heap per writer subtask: ~200 MB at ~200 bytes each. */
  public static final int WRITER_INDEX_CACHE_ENTRIES_DEFAULT = 1_000_000;
  /** The most entries a writer's key index cache takes (its array stays indexable by an int). */
  public static final int WRITER_INDEX_CACHE_ENTRIES_MAX = 1 << 26;
  /** How long a writer waits for a data file's commit to learn a key's row id. */
  public static final Duration WRITER_ROW_ID_WAIT_DEFAULT = Duration.ofSeconds(60);
  /** Tables of one checkpoint the committer commits at once. */
  public static final int COMMITTER_THREADS_DEFAULT = 4;
  public static final int COMMITTER_THREADS_MAX = 64;
  /** Committer subtasks (tables keyed across them): one, the single committer of old. */
  public static final int COMMITTER_PARALLELISM_DEFAULT = 1;
  /** Bound of the manifest content cache of each catalog client's file IO. */
  public static final long MANIFEST_CACHE_BYTES_DEFAULT = 32L << 20;
  /** The role part of the default outbox directory's name. */
  static final String OUTBOX_ROLE = "materializer";

  private final String catalogName;
  private final Map<String, String> catalogProperties;
  private final ObjectStoreEndpoint endpoint;
  private final String walPrefix;
  private final URI eventsUri;
  /** Never printed: see {@link #toString}. */
  private final String eventsToken;
  /** Null for the default, which is resolved where the publisher runs (its temp directory). */
  private final String eventsOutboxDir;
  private final long eventsOutboxMaxBytes;
  private final SerializableSupplier<EventPublisher> eventPublisher;
  private final Duration checkpointInterval;
  private final String checkpointDir;
  private final int parallelism;
  private final Duration discoveryInterval;
  private final long writerBufferBytes;
  private final int writerMaxOpenTables;
  private final long writerOpenFileBytes;
  private final int writerIndexCacheEntries;
  private final IntervalStaging intervalStaging;
  private final Duration writerRowIdWait;
  private final int committerThreads;
  private final int committerParallelism;

  private MaterializerConfig(Builder b) {
    this.catalogName = b.catalogName == null ? CATALOG_NAME_DEFAULT : b.catalogName;
    this.catalogProperties = Collections.unmodifiableMap(new LinkedHashMap<>(b.catalogProperties));
    this.endpoint = b.endpoint;
    this.walPrefix = b.walPrefix == null ? WalLayout.DEFAULT_PREFIX : b.walPrefix;
    this.eventsUri = b.eventsUri;
    this.eventsToken = b.eventsToken;
    this.eventsOutboxDir = b.eventsOutboxDir;
    this.eventsOutboxMaxBytes = b.eventsOutboxMaxBytes < 0
        ? DurableOutbox.MAX_BYTES_DEFAULT : b.eventsOutboxMaxBytes;
    this.eventPublisher = b.eventPublisher;
    this.checkpointInterval =
        b.checkpointInterval == null ? CHECKPOINT_INTERVAL_DEFAULT : b.checkpointInterval;
    this.checkpointDir = b.checkpointDir;
    this.parallelism = b.parallelism;
    this.discoveryInterval =
        b.discoveryInterval == null ? DISCOVERY_INTERVAL_DEFAULT : b.discoveryInterval;
    this.writerBufferBytes = b.writerBufferBytes < 0 ? WRITER_BUFFER_BYTES_DEFAULT : b.writerBufferBytes;
    this.writerMaxOpenTables = b.writerMaxOpenTables < 0
        ? WRITER_MAX_OPEN_TABLES_DEFAULT : b.writerMaxOpenTables;
    this.writerOpenFileBytes = b.writerOpenFileBytes < 0
        ? WRITER_OPEN_FILE_BYTES_DEFAULT : b.writerOpenFileBytes;
    this.writerIndexCacheEntries = b.writerIndexCacheEntries < 0
        ? WRITER_INDEX_CACHE_ENTRIES_DEFAULT : b.writerIndexCacheEntries;
    this.intervalStaging = b.intervalStaging == null ? IntervalStaging.AUTO : b.intervalStaging;
    this.writerRowIdWait =
        b.writerRowIdWait == null ? WRITER_ROW_ID_WAIT_DEFAULT : b.writerRowIdWait;
    this.committerThreads = b.committerThreads < 0 ? COMMITTER_THREADS_DEFAULT : b.committerThreads;
    this.committerParallelism = b.committerParallelism < 0
        ? COMMITTER_PARALLELISM_DEFAULT : b.committerParallelism;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Parses command-line arguments (see {@link MaterializerSettings}). */
  public static MaterializerConfig fromArgs(String... args) {
    return MaterializerSettings.parse(args);
  }

  public String catalogName() {
    return catalogName;
  }

  public Map<String, String> catalogProperties() {
    return catalogProperties;
  }

  public ObjectStoreEndpoint objectStore() {
    return endpoint;
  }

  public WalLayout walLayout() {
    return new WalLayout(walPrefix);
  }

  public URI eventsUri() {
    return eventsUri;
  }

  /** Whether events are published with a bearer token (the token itself is not exposed). */
  public boolean hasEventsToken() {
    return eventsToken != null;
  }

  /**
   * The directory of the event outbox: the configured one, or the default under this JVM's
   * temp directory, named after the catalog so two deployments on one host never share it.
   */
  public Path eventsOutboxDir() {
    return eventsOutboxDir != null ? Path.of(eventsOutboxDir)
        : DurableOutbox.defaultDirectory(OUTBOX_ROLE, catalogName + "\n"
            + catalogProperties.get(CatalogProperties.URI) + "\n"
            + catalogProperties.get(CatalogProperties.WAREHOUSE_LOCATION));
  }

  public long eventsOutboxMaxBytes() {
    return eventsOutboxMaxBytes;
  }

  public Duration checkpointInterval() {
    return checkpointInterval;
  }

  /** Where checkpoints go when the job sets its own state backend; null leaves it to flink-conf. */
  public String checkpointDir() {
    return checkpointDir;
  }

  /** Source and writer parallelism, or -1 for the environment's default. */
  public int parallelism() {
    return parallelism;
  }

  public Duration discoveryInterval() {
    return discoveryInterval;
  }

  public long writerBufferBytes() {
    return writerBufferBytes;
  }

  /**
   * How many tables have an open interval on one writer subtask at most; beyond it the least
   * recently written one ends early.
   */
  public int writerMaxOpenTables() {
    return writerMaxOpenTables;
  }

  /**
   * What each data file whose Parquet writer is open counts in the byte bound besides its rows.
   */
  public long writerOpenFileBytes() {
    return writerOpenFileBytes;
  }

  /** How many key index entries each writer subtask caches on the heap (0: none). */
  public int writerIndexCacheEntries() {
    return writerIndexCacheEntries;
  }

  /**
   * How long the new version of a key waits for the commit of the data file holding its
   * previous version (format version 3: that file's {@code first_row_id} gives the key's
   * {@code _row_id}); after it the version gets a fresh id.
   */
  public Duration writerRowIdWait() {
    return writerRowIdWait;
  }

  /** How many tables of one checkpoint the committer commits at once (1: one after another). */
  public int committerThreads() {
    return committerThreads;
  }

  /**
   * How many committer subtasks share the tables (keyed by table: each table is committed by
   * exactly one of them, in key groups of the job's max parallelism).
   */
  public int committerParallelism() {
    return committerParallelism;
  }

  /** Which tables' intervals hold their rows until the barrier. */
  public IntervalStaging intervalStaging() {
    return intervalStaging;
  }

  /**
   * A new catalog client; the caller closes it if it is {@link AutoCloseable}. Its file IO caches
   * manifest contents (manifests are immutable): every commit resolves its deletes against the
   * table's manifests, and Iceberg's own commit filters them again, so without the cache each
   * commit re-reads the whole manifest set from the object store. The cache is bounded by
   * {@link #MANIFEST_CACHE_BYTES_DEFAULT} unless the catalog properties set
   * {@code io.manifest.cache.max-total-bytes} (or disable it).
   */
  public Catalog newCatalog() {
    Map<String, String> properties = new LinkedHashMap<>(catalogProperties);
    properties.putIfAbsent(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true");
    properties.putIfAbsent(CatalogProperties.IO_MANIFEST_CACHE_MAX_TOTAL_BYTES,
        Long.toString(MANIFEST_CACHE_BYTES_DEFAULT));
    return Catalogs.load(catalogName, properties);
  }

  /** A new WAL store client; the caller closes it. */
  public WalStore newWalStore() {
    return S3WalStore.open(endpoint, walLayout());
  }

  /**
   * A new event publisher: the supplied one, an HTTP publisher for {@link #eventsUri()} through
   * the outbox in {@link #eventsOutboxDir()}, or one that drops events when neither is
   * configured. The caller closes it.
   */
  public EventPublisher newEventPublisher() {
    if (eventPublisher != null) {
      return eventPublisher.get();
    }
    if (eventsUri == null) {
      return EventPublisher.discarding();
    }
    return HttpEventPublisher.builder(eventsUri).token(eventsToken)
        .outboxDir(eventsOutboxDir()).outboxMaxBytes(eventsOutboxMaxBytes).build();
  }

  @Override
  public String toString() {
    return "MaterializerConfig{catalog=" + catalogName + ", catalogType="
        + catalogProperties.getOrDefault("type", catalogProperties.get("catalog-impl"))
        + ", s3=" + endpoint.endpoint() + "/" + endpoint.bucket() + ", wal=" + walPrefix
        + ", events=" + (eventPublisher != null ? "supplied" : eventsUri)
        + ", eventsCredential=" + (eventsToken != null ? "bearer" : "none")
        + ", eventsOutbox=" + (eventsOutboxDir != null ? eventsOutboxDir : "default")
        + ", eventsOutboxMaxBytes=" + eventsOutboxMaxBytes
        + ", checkpointInterval=" + checkpointInterval + ", checkpointDir=" + checkpointDir
        + ", parallelism=" + parallelism + ", discoveryInterval=" + discoveryInterval
        + ", writerBufferBytes=" + writerBufferBytes
        + ", writerMaxOpenTables=" + writerMaxOpenTables
        + ", writerOpenFileBytes=" + writerOpenFileBytes
        + ", writerIndexCacheEntries=" + writerIndexCacheEntries
        + ", writerRowIdWait=" + writerRowIdWait + ", committerThreads=" + committerThreads
        + ", committerParallelism=" + committerParallelism
        + ", intervalStaging=" + intervalStaging + "}";
  }

  /** Builds a {@link MaterializerConfig}; each setting may be given once. */
  public static final class Builder {
    private String catalogName;
    private final Map<String, String> catalogProperties = new LinkedHashMap<>();
    private ObjectStoreEndpoint endpoint;
    private String walPrefix;
    private URI eventsUri;
    private String eventsToken;
    private String eventsOutboxDir;
    private long eventsOutboxMaxBytes = -1;
    private SerializableSupplier<EventPublisher> eventPublisher;
    private Duration checkpointInterval;
    private String checkpointDir;
    private int parallelism = -1;
    private boolean parallelismSet;
    private Duration discoveryInterval;
    private long writerBufferBytes = -1;
    private int writerMaxOpenTables = -1;
    private long writerOpenFileBytes = -1;
    private int writerIndexCacheEntries = -1;
    private IntervalStaging intervalStaging;
    private Duration writerRowIdWait;
    private int committerThreads = -1;
    private int committerParallelism = -1;

    private Builder() {}

    public Builder catalogName(String name) {
      checkUnset(catalogName, "catalog name");
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("Invalid catalog name: '" + name + "'");
      }
      this.catalogName = name;
      return this;
    }

    /** The catalog's name and properties at once. */
    public Builder catalog(String name, Map<String, String> properties) {
      return catalogName(name).catalogProperties(properties);
    }

    public Builder catalogProperty(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (catalogProperties.containsKey(key)) {
        throw new IllegalStateException("Catalog property " + key + " was already set");
      }
      catalogProperties.put(key, value);
      return this;
    }

    public Builder catalogProperties(Map<String, String> properties) {
      properties.forEach(this::catalogProperty);
      return this;
    }

    public Builder objectStore(ObjectStoreEndpoint objectStore) {
      checkUnset(endpoint, "object store");
      this.endpoint = Objects.requireNonNull(objectStore, "objectStore");
      return this;
    }

    public Builder walPrefix(String prefix) {
      checkUnset(walPrefix, "WAL prefix");
      new WalLayout(prefix); // validates
      this.walPrefix = prefix;
      return this;
    }

    public Builder eventsUri(URI uri) {
      checkUnset(eventsUri, "events URI");
      this.eventsUri = Objects.requireNonNull(uri, "uri");
      return this;
    }

    /** The bearer token sent to the change feed (its publish credential). */
    public Builder eventsToken(String token) {
      if (eventsToken != null) {
        throw new IllegalStateException("The events token was already set");
      }
      this.eventsToken = HttpEventPublisher.checkToken(token);
      return this;
    }

    /** Where undelivered events wait; see the class comment for the default. */
    public Builder eventsOutboxDir(Path dir) {
      checkUnset(eventsOutboxDir, "events outbox directory");
      if (dir == null || dir.toString().isBlank()) {
        throw new IllegalArgumentException("Invalid events outbox directory: '" + dir + "'");
      }
      this.eventsOutboxDir = dir.toString();
      return this;
    }

    public Builder eventsOutboxMaxBytes(long bytes) {
      if (eventsOutboxMaxBytes >= 0) {
        throw new IllegalStateException(
            "Events outbox max bytes was already set to " + eventsOutboxMaxBytes);
      }
      this.eventsOutboxMaxBytes = DurableOutbox.checkMaxBytes(bytes);
      return this;
    }

    /** Supplies the event publisher explicitly (tests, embedded use); wins over the URI. */
    public Builder eventPublisher(SerializableSupplier<EventPublisher> supplier) {
      checkUnset(eventPublisher, "event publisher");
      this.eventPublisher = Objects.requireNonNull(supplier, "supplier");
      return this;
    }

    public Builder checkpointInterval(Duration interval) {
      checkUnset(checkpointInterval, "checkpoint interval");
      if (interval == null || interval.toMillis() < 10) {
        throw new IllegalArgumentException("Invalid checkpoint interval: " + interval
            + " (at least 10 ms)");
      }
      this.checkpointInterval = interval;
      return this;
    }

    public Builder checkpointDir(String dir) {
      checkUnset(checkpointDir, "checkpoint directory");
      if (dir == null || dir.isBlank()) {
        throw new IllegalArgumentException("Invalid checkpoint directory: '" + dir + "'");
      }
      this.checkpointDir = dir;
      return this;
    }

    public Builder parallelism(int value) {
      if (parallelismSet) {
        throw new IllegalStateException("Parallelism was already set to " + parallelism);
      }
      if (value < 1) {
        throw new IllegalArgumentException("Invalid parallelism: " + value);
      }
      this.parallelism = value;
      this.parallelismSet = true;
      return this;
    }

    public Builder discoveryInterval(Duration interval) {
      checkUnset(discoveryInterval, "discovery interval");
      if (interval == null || interval.toMillis() < 1) {
        throw new IllegalArgumentException("Invalid discovery interval: " + interval);
      }
      this.discoveryInterval = interval;
      return this;
    }

    public Builder writerBufferBytes(long bytes) {
      if (writerBufferBytes >= 0) {
        throw new IllegalStateException("Writer buffer bytes was already set to " + writerBufferBytes);
      }
      if (bytes < 1) {
        throw new IllegalArgumentException("Invalid writer buffer bytes: " + bytes);
      }
      this.writerBufferBytes = bytes;
      return this;
    }

    public Builder writerMaxOpenTables(int tables) {
      if (writerMaxOpenTables >= 0) {
        throw new IllegalStateException(
            "Writer max open tables was already set to " + writerMaxOpenTables);
      }
      if (tables < 1) {
        throw new IllegalArgumentException("Invalid writer max open tables: " + tables);
      }
      this.writerMaxOpenTables = tables;
      return this;
    }

    public Builder writerOpenFileBytes(long bytes) {
      if (writerOpenFileBytes >= 0) {
        throw new IllegalStateException(
            "Writer open file bytes was already set to " + writerOpenFileBytes);
      }
      if (bytes < 0) {
        throw new IllegalArgumentException("Invalid writer open file bytes: " + bytes);
      }
      this.writerOpenFileBytes = bytes;
      return this;
    }

    public Builder writerIndexCacheEntries(int entries) {
      if (writerIndexCacheEntries >= 0) {
        throw new IllegalStateException(
            "Writer index cache entries was already set to " + writerIndexCacheEntries);
      }
      if (entries < 0 || entries > WRITER_INDEX_CACHE_ENTRIES_MAX) {
        throw new IllegalArgumentException("Invalid writer index cache entries: " + entries
            + " (0 to " + WRITER_INDEX_CACHE_ENTRIES_MAX + ")");
      }
      this.writerIndexCacheEntries = entries;
      return this;
    }

    public Builder writerRowIdWait(Duration wait) {
      checkUnset(writerRowIdWait, "writer row id wait");
      if (wait == null || wait.isNegative()) {
        throw new IllegalArgumentException("Invalid writer row id wait: " + wait
            + " (need >= 0)");
      }
      this.writerRowIdWait = wait;
      return this;
    }

    public Builder committerThreads(int threads) {
      if (committerThreads >= 0) {
        throw new IllegalStateException("Committer threads was already set to " + committerThreads);
      }
      if (threads < 1 || threads > COMMITTER_THREADS_MAX) {
        throw new IllegalArgumentException("Invalid committer threads: " + threads + " (1 to "
            + COMMITTER_THREADS_MAX + ")");
      }
      this.committerThreads = threads;
      return this;
    }

    public Builder committerParallelism(int value) {
      if (committerParallelism >= 0) {
        throw new IllegalStateException(
            "Committer parallelism was already set to " + committerParallelism);
      }
      if (value < 1) {
        throw new IllegalArgumentException("Invalid committer parallelism: " + value
            + " (need >= 1)");
      }
      this.committerParallelism = value;
      return this;
    }

    public Builder intervalStaging(IntervalStaging staging) {
      checkUnset(intervalStaging, "interval staging");
      this.intervalStaging = Objects.requireNonNull(staging, "interval staging");
      return this;
    }

    public MaterializerConfig build() {
      if (endpoint == null) {
        throw new IllegalStateException("Cannot build materializer config: no object store");
      }
      if (catalogProperties.isEmpty()) {
        throw new IllegalStateException("Cannot build materializer config: no catalog properties");
      }
      if (eventsUri == null && (eventsToken != null || eventsOutboxDir != null)) {
        throw new IllegalStateException("Cannot build materializer config: an events token or"
            + " outbox directory without an events URI");
      }
      return new MaterializerConfig(this);
    }

    private static void checkUnset(Object current, String what) {
      if (current != null) {
        throw new IllegalStateException("The " + what + " was already set to " + current);
      }
    }
  }
}
