package io.verglas.cache.catalog;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;

/**
 * Settings of the cache node's Iceberg REST catalog ({@code /catalog}): the backing catalog it
 * serves, the bearer token clients must send, and its bounds. Built and validated by
 * {@link #builder}.
 *
 * <pre>{@code
 * RestCatalogConfig.builder(jdbcCatalog, token)   // clients: uri=<node>/catalog, token=<token>
 *     .loadCacheTtl(Duration.ofSeconds(5))
 *     .build();
 * }</pre>
 *
 * <p>The node does not own the backing catalog: close it after the node. When the catalog's
 * own FileIO goes through the node (the local stack), it can only be made once the node is
 * bound: pass a supplier then, which answers null until it is ready ({@code /catalog} answers
 * 503 meanwhile).
 */
public final class RestCatalogConfig {
  public static final Duration DEFAULT_LOAD_CACHE_TTL = Duration.ofSeconds(5);
  public static final int DEFAULT_LOAD_CACHE_MAX_ENTRIES = 1_000;
  public static final int DEFAULT_THREADS = 4;
  public static final int DEFAULT_QUEUE_CAPACITY = 256;
  public static final long DEFAULT_MAX_REQUEST_BYTES = 8L * 1024 * 1024;

  private final Supplier<Catalog> catalog;
  private final String token;
  private final Duration loadCacheTtl;
  private final int loadCacheMaxEntries;
  private final int threads;
  private final int queueCapacity;
  private final long maxRequestBytes;

  private RestCatalogConfig(Builder b) {
    this.catalog = b.catalog;
    this.token = b.token;
    this.loadCacheTtl = b.loadCacheTtl != null ? b.loadCacheTtl : DEFAULT_LOAD_CACHE_TTL;
    this.loadCacheMaxEntries = b.loadCacheMaxEntries != null ? b.loadCacheMaxEntries : DEFAULT_LOAD_CACHE_MAX_ENTRIES;
    this.threads = b.threads != null ? b.threads : DEFAULT_THREADS;
    this.queueCapacity = b.queueCapacity != null ? b.queueCapacity : DEFAULT_QUEUE_CAPACITY;
    this.maxRequestBytes = b.maxRequestBytes != null ? b.maxRequestBytes : DEFAULT_MAX_REQUEST_BYTES;
  }

  /**
   * A builder over {@code catalog} (any Iceberg catalog; namespace operations need
   * {@code SupportsNamespaces}) whose clients must send {@code Authorization: Bearer <token>}.
   */
  public static Builder builder(Catalog catalog, String token) {
    Objects.requireNonNull(catalog, "catalog");
    return new Builder(() -> catalog, token);
  }

  /**
   * A builder over the catalog {@code catalog} supplies, asked at each request (null: not
   * ready yet, answered 503); for a catalog that can only be made once the node is bound.
   */
  public static Builder builder(Supplier<Catalog> catalog, String token) {
    return new Builder(Objects.requireNonNull(catalog, "catalog"), token);
  }

  /** The backing catalog's supplier. */
  public Supplier<Catalog> catalog() {
    return catalog;
  }

  String token() {
    return token;
  }

  public Duration loadCacheTtl() {
    return loadCacheTtl;
  }

  public int loadCacheMaxEntries() {
    return loadCacheMaxEntries;
  }

  public int threads() {
    return threads;
  }

  public int queueCapacity() {
    return queueCapacity;
  }

  public long maxRequestBytes() {
    return maxRequestBytes;
  }

  @Override
  public String toString() {
    // Never print the token.
    return "RestCatalogConfig[loadCacheTtl=" + loadCacheTtl
        + ", loadCacheMaxEntries=" + loadCacheMaxEntries + ", threads=" + threads
        + ", queueCapacity=" + queueCapacity + ", maxRequestBytes=" + maxRequestBytes + "]";
  }

  /** Each setting may be set once; values are checked as they are set. */
  public static final class Builder {
    private final Supplier<Catalog> catalog;
    private final String token;
    private Duration loadCacheTtl;
    private Integer loadCacheMaxEntries;
    private Integer threads;
    private Integer queueCapacity;
    private Long maxRequestBytes;

    private Builder(Supplier<Catalog> catalog, String token) {
      this.catalog = catalog;
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException(
            "Invalid catalog token: it must not be blank (the REST catalog can create and drop tables)");
      }
      this.token = token;
    }

    /**
     * How long a loaded table is answered from memory; commits through the catalog invalidate
     * it at once, commits by other writers are seen after it (or at once with
     * {@link CatalogProxy#invalidate}). Default 5 s; zero turns the cache off.
     */
    public Builder loadCacheTtl(Duration value) {
      once(loadCacheTtl, "loadCacheTtl");
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException("Invalid load cache TTL: " + value + " (must be >= 0)");
      }
      loadCacheTtl = value;
      return this;
    }

    /** Tables whose load responses are kept at most; default 1000. */
    public Builder loadCacheMaxEntries(int value) {
      once(loadCacheMaxEntries, "loadCacheMaxEntries");
      if (value < 0) {
        throw new IllegalArgumentException("Invalid load cache size: " + value + " (must be >= 0)");
      }
      loadCacheMaxEntries = value;
      return this;
    }

    /** Threads calling the backing catalog (which may block, as JDBC does); default 4. */
    public Builder threads(int value) {
      once(threads, "threads");
      if (value < 1) {
        throw new IllegalArgumentException("Invalid catalog threads: " + value + " (must be >= 1)");
      }
      threads = value;
      return this;
    }

    /** Requests waiting for a thread at most; more are answered 503. Default 256. */
    public Builder queueCapacity(int value) {
      once(queueCapacity, "queueCapacity");
      if (value < 1) {
        throw new IllegalArgumentException("Invalid catalog queue capacity: " + value + " (must be >= 1)");
      }
      queueCapacity = value;
      return this;
    }

    /** Largest request body (a commit's JSON); default 8 MiB. */
    public Builder maxRequestBytes(long value) {
      once(maxRequestBytes, "maxRequestBytes");
      if (value < 1 || value > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("Invalid catalog request size limit: " + value);
      }
      maxRequestBytes = value;
      return this;
    }

    public RestCatalogConfig build() {
      return new RestCatalogConfig(this);
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }
  }
}
