package io.verglas.vector;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * Answers vector searches at one snapshot: from that snapshot's own index when it has one,
 * otherwise by exact search over its live rows (refused above a row limit); the result says
 * which. Thread-safe.
 */
/*
 * Design. The index is found by SnapshotIndexes (exactly this snapshot, never a parent's), its
 * blobs are read through the table's FileIO (pointed at the cache endpoint, they come from the
 * cache tier), decoded into a VectorIndex and kept in a Caffeine cache bounded by bytes (graph
 * shards plus ordinal map); a graph larger than the whole bound is used for the one search and
 * not kept. With the decoded copy goes the set of ordinals that are live rows of the snapshot
 * (LiveRows): a hit outside it is never returned, whatever the index holds. An evicted copy is
 * not closed: searches in flight keep using it, and its heap buffers go with the last of them.
 */
public final class VectorSearcher {
  private final long exactSearchMaxRows;
  private final long cacheMaxBytes;
  private final Cache<String, LoadedIndex> decoded;

  private VectorSearcher(Builder b) {
    this.exactSearchMaxRows = b.exactSearchMaxRows;
    this.cacheMaxBytes = b.cacheMaxBytes;
    this.decoded = Caffeine.newBuilder()
        .maximumWeight(b.cacheMaxBytes)
        .weigher((String key, LoadedIndex index) -> (int) Math.min(Integer.MAX_VALUE,
            index.bytes()))
        .build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Bytes of decoded indexes held now. */
  public long cachedBytes() {
    decoded.cleanUp(); // Caffeine applies writes to its weights in pending maintenance
    return decoded.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  public VectorSearchResult search(Table table, long snapshotId, float[] query, int k, int ef) {
    return search(table, snapshotId, query, k, ef, null);
  }

  /**
   * The top {@code k} among the rows {@code rows} admits (all live rows when null): a filter on
   * other columns, evaluated by the caller into the rows it matches at this snapshot.
   */
  public VectorSearchResult search(Table table, long snapshotId, float[] query, int k, int ef,
      Predicate<RowRef> rows) {
    if (table.snapshot(snapshotId) == null) {
      throw new IllegalArgumentException("Cannot search " + table.name() + ": no snapshot "
          + snapshotId);
    }
    VectorColumn column = VectorColumn.of(table);
    Optional<PublishedIndex> published = SnapshotIndexes.find(table, snapshotId)
        .filter(index -> index.fieldId() == column.fieldId());
    if (published.isEmpty()) {
      return exact(table, snapshotId, column, query, k, rows, "no index for snapshot " + snapshotId);
    }
    LoadedIndex index = load(table, published.get());
    if (index.live() == null) {
      return exact(table, snapshotId, column, query, k, rows, "the snapshot has equality deletes");
    }
    List<VectorSearchResult.Hit> hits = new ArrayList<>(k);
    for (Neighbor n : index.index().search(query, k, Math.max(k, ef), accept(index, rows))) {
      hits.add(new VectorSearchResult.Hit(index.rows().row(n.ordinal()), n.score()));
    }
    return new VectorSearchResult(snapshotId, VectorSearchResult.Method.INDEX, null, hits);
  }

  /** The index's live filter, narrowed to the ordinals whose rows {@code rows} admits. */
  private static IntPredicate accept(LoadedIndex index, Predicate<RowRef> rows) {
    if (rows == null) {
      return index.accept();
    }
    IntPredicate live = index.accept();
    return ordinal -> (live == null || live.test(ordinal)) && rows.test(index.rows().row(ordinal));
  }

  private LoadedIndex load(Table table, PublishedIndex published) {
    LoadedIndex cached = decoded.getIfPresent(published.cacheKey());
    if (cached != null) {
      return cached;
    }
    LoadedIndex loaded = LoadedIndex.read(table, published);
    if (loaded.bytes() <= cacheMaxBytes) {
      decoded.put(published.cacheKey(), loaded);
    }
    return loaded;
  }

  private VectorSearchResult exact(Table table, long snapshotId, VectorColumn column,
      float[] query, int k, Predicate<RowRef> rows, String reason) {
    long total = rowsAt(table.snapshot(snapshotId));
    if (total > exactSearchMaxRows) {
      throw new ExactSearchRefusedException(table.name(), snapshotId, reason, total,
          exactSearchMaxRows);
    }
    SnapshotVectors vectors = TableVectors.read(table, snapshotId, column);
    List<VectorSearchResult.Hit> hits = new ArrayList<>(k);
    IntPredicate accept = rows == null ? null : ordinal -> rows.test(vectors.rows().row(ordinal));
    for (Neighbor n : new ExactSearch(column.metric(), vectors.vectors()).search(query, k, accept)) {
      hits.add(new VectorSearchResult.Hit(vectors.rows().row(n.ordinal()), n.score()));
    }
    return new VectorSearchResult(snapshotId, VectorSearchResult.Method.EXACT, reason, hits);
  }

  /** Rows in the snapshot's data files (deletes not subtracted): the cost of an exact search. */
  private static long rowsAt(Snapshot snapshot) {
    String total = snapshot.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP);
    return total == null ? Long.MAX_VALUE : Long.parseLong(total);
  }

  /**
   * A decoded index with its ordinal map and the ordinals live in its snapshot ({@code live}
   * null when the snapshot has equality deletes); {@code accept} is the search filter, null when
   * every ordinal is live, so that JVector takes its unfiltered path.
   */
  record LoadedIndex(VectorIndex index, OrdinalMap rows, BitSet live, IntPredicate accept,
      long bytes) {

    static LoadedIndex read(Table table, PublishedIndex published) {
      StoredIndex stored = StoredIndex.read(table, published);
      OrdinalMap rows = stored.rows();
      VectorIndex index = VectorIndex.load(published.metric(), stored.shards());
      BitSet live = LiveRows.of(table, published.snapshotId(), rows).orElse(null);
      IntPredicate accept = live == null || live.cardinality() == rows.size() ? null : live::get;
      return new LoadedIndex(index, rows, live, accept, index.sizeInBytes() + rows.sizeInBytes());
    }
  }

  /** Options of a searcher; each may be set once. */
  public static final class Builder {
    private long exactSearchMaxRows = 100_000;
    private long cacheMaxBytes = 256L << 20;

    private Builder() {}

    /** Above this many rows a snapshot without an index is refused, not scanned; 100 000. */
    public Builder exactSearchMaxRows(long value) {
      if (value < 0) {
        throw new IllegalArgumentException("Cannot set exactSearchMaxRows: " + value);
      }
      this.exactSearchMaxRows = value;
      return this;
    }

    /** Bytes of decoded indexes kept in memory; 256 MiB by default. */
    public Builder cacheMaxBytes(long value) {
      if (value < 0) {
        throw new IllegalArgumentException("Cannot set cacheMaxBytes: " + value);
      }
      this.cacheMaxBytes = value;
      return this;
    }

    public VectorSearcher build() {
      return new VectorSearcher(this);
    }
  }
}
