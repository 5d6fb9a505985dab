package io.verglas.ingest.table;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Loaded tables, so that validating a stream does not read table metadata every time.
 *
 * <p>Design: an entry is used for at most {@code refreshAfter} and then loaded again, which
 * bounds how long a schema change made elsewhere goes unseen; a caller that finds a stream
 * incompatible with a cached schema calls {@link #reload} before rejecting it, so a column just
 * added is accepted at once. The cache is size-bounded because a catalog may hold millions of
 * tables while only the ones being written matter.
 */
public final class TableCache {
  public static final Duration REFRESH_AFTER_DEFAULT = Duration.ofSeconds(10);
  static final long MAX_TABLES = 10_000;

  private final Catalog catalog;
  private final Cache<TableIdentifier, IngestTable> tables;

  public TableCache(Catalog catalog, Duration refreshAfter) {
    this(catalog, refreshAfter, Ticker.systemTicker());
  }

  TableCache(Catalog catalog, Duration refreshAfter, Ticker ticker) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.tables = Caffeine.newBuilder()
        .maximumSize(MAX_TABLES)
        .expireAfterWrite(refreshAfter)
        .ticker(ticker)
        .build();
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
    return tables.get(identifier, this::load);
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
