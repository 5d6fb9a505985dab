package io.verglas.vector;

import io.github.jbellis.jvector.disk.ByteBufferReader;
import io.github.jbellis.jvector.disk.ReaderSupplier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.util.Pair;

/**
 * The blobs of a published index as read from its statistics file: the graph's shards in order
 * and the ordinal map. Read by the searcher (to decode) and by incremental builds (to extend).
 */
record StoredIndex(List<ByteBuffer> shards, OrdinalMap rows, long graphBytes) {

  static StoredIndex read(Table table, PublishedIndex published) {
    SortedMap<Integer, ByteBuffer> shards = new TreeMap<>();
    int expectedShards = 1;
    OrdinalMap rows = null;
    for (Pair<BlobMetadata, ByteBuffer> blob : StatisticsBlobs.read(table.io(),
        published.statisticsFile(), b -> b.snapshotId() == published.snapshotId()
            && (IndexBlobs.GRAPH_TYPE.equals(b.type())
                || IndexBlobs.ORDINALS_TYPE.equals(b.type())))) {
      if (IndexBlobs.ORDINALS_TYPE.equals(blob.first().type())) {
        rows = OrdinalMap.deserialize(blob.second());
      } else {
        shards.put(shardIndex(blob.first()), blob.second());
        expectedShards = Integer.parseInt(
            blob.first().properties().getOrDefault(IndexBlobs.SHARDS, "1"));
      }
    }
    if (rows == null || shards.size() != expectedShards) {
      throw new IllegalStateException("Cannot load vector index from "
          + published.statisticsFile().path() + ": " + shards.size() + " of "
          + expectedShards + " graph shards, ordinal map " + (rows == null ? "missing" : "found"));
    }
    return of(new ArrayList<>(shards.values()), rows);
  }

  /** Shards taken as they are (sliced, not copied), with their total size. */
  static StoredIndex of(List<ByteBuffer> shards, OrdinalMap rows) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("Cannot load vector index: no shards");
    }
    List<ByteBuffer> slices = new ArrayList<>(shards.size());
    long bytes = 0;
    for (ByteBuffer shard : shards) {
      slices.add(shard.slice());
      bytes += shard.remaining();
    }
    return new StoredIndex(List.copyOf(slices), rows, bytes);
  }

  /** JVector readers over the graph bytes, in place. */
  ReaderSupplier readers() {
    return shards.size() == 1
        ? () -> new ByteBufferReader(shards.get(0).duplicate())
        : () -> new ShardedReader(shards);
  }

  private static int shardIndex(BlobMetadata blob) {
    return Integer.parseInt(blob.properties().getOrDefault(IndexBlobs.SHARD, "0"));
  }
}
