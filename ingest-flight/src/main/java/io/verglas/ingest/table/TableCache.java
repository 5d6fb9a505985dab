package io.verglas.ingest.table;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Loaded tables, so that validating a stream does not read table metadata every time.
 *
 * <p>Design: an entry older than {@code refreshAfter} is loaded again in the background on its
 * next use while it keeps serving, so no batch waits for the catalog on the hot path (a
 * synchronous reload every interval put a catalog round trip into the ack latency of whichever
 * batch came first); this bounds how long a schema change made elsewhere goes unseen to
 * {@code refreshAfter} plus one load. Serving the older schema meanwhile is safe because schemas
 * only gain nullable columns: a batch valid against it is valid against the newer one. A caller
 * that finds a stream incompatible with a cached schema calls {@link #reload} before rejecting
 * it, so a column just added is accepted at once. An entry whose reloads keep failing expires
 * after {@link #EXPIRE_AFTER_REFRESHES} intervals, and the next use fails with the catalog's
 * error. The cache is size-bounded because a catalog may hold millions of tables while only
 * the ones being written matter.
 */
public final class TableCache {
  public static final Duration REFRESH_AFTER_DEFAULT = Duration.ofSeconds(10);
  static final long MAX_TABLES = 10_000;
  static final int EXPIRE_AFTER_REFRESHES = 6;

  private final Catalog catalog;
  private final LoadingCache<TableIdentifier, IngestTable> tables;

  public TableCache(Catalog catalog, Duration refreshAfter) {
    this(catalog, refreshAfter, Ticker.systemTicker(), ForkJoinPool.commonPool());
  }

  TableCache(Catalog catalog, Duration refreshAfter, Ticker ticker, Executor reloads) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.tables = Caffeine.newBuilder()
        .maximumSize(MAX_TABLES)
        .refreshAfterWrite(refreshAfter)
        .expireAfterWrite(refreshAfter.multipliedBy(EXPIRE_AFTER_REFRESHES))
        .ticker(ticker)
        .executor(reloads)
        .build(this::load);
  }

  public Catalog catalog() {
    return catalog;
  }

  /**
   * The table, from the cache if loaded recently.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if the table does not exist
   */
  public IngestTable get(TableIdentifier identifier) {
    return tables.get(identifier);
  }

  /** Loads the table's current metadata, replacing the cached entry. */
  public IngestTable reload(TableIdentifier identifier) {
    IngestTable table = load(identifier);
    tables.put(identifier, table);
    return table;
  }

  public void invalidate(TableIdentifier identifier) {
    tables.invalidate(identifier);
  }

  private IngestTable load(TableIdentifier identifier) {
    return IngestTable.of(identifier, catalog.loadTable(identifier));
  }
}
