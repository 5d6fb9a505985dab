package io.verglas.vector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinCompressionCodec;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.util.Pair;

/**
 * Builds the index of one snapshot and publishes it as that snapshot's statistics file, written
 * through the table's FileIO and committed with {@code updateStatistics().setStatistics(...)}.
 */
/*
 * Design. Iceberg keeps one statistics file per snapshot, so publishing ours would drop another
 * writer's blobs (theta sketches, say): the new file carries every blob of the snapshot's
 * current statistics file except earlier index blobs, copied with their codec and properties.
 * UpdateStatistics has no conflict check, so just before the commit the table is refreshed and,
 * if the snapshot's statistics file changed since it was copied, the file is written again from
 * the new one (the built graph is kept); a writer racing inside that window can still be lost,
 * which Iceberg's API gives no way to prevent.
 *
 * Idempotence: publishing a snapshot that already has an index of the same column returns that
 * index and writes nothing. A snapshot without live vectors gets no index (search is exact).
 *
 * Memory: the graph is built on heap (JVector), written to a temporary file and mapped from it
 * shard by shard into the Puffin writer; shards are at most shardBytes (Puffin's 2 GiB cap).
 * A statistics file left by a failed commit is an orphan for orphan-file removal.
 */
public final class IndexPublisher {
  private static final int COMMIT_ATTEMPTS = 3;

  private final IndexBuilder indexBuilder;
  private final long shardBytes;
  private final Path tempDir;
  private final double maxChangedFraction;

  private IndexPublisher(Builder b) {
    this.indexBuilder = b.indexBuilder;
    this.shardBytes = b.shardBytes;
    this.tempDir = b.tempDir;
    this.maxChangedFraction = b.maxChangedFraction;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Publishes the index of {@code snapshotId}; empty when the snapshot has no live vectors. */
  public Optional<PublishedIndex> publish(Table table, long snapshotId) {
    VectorColumn column = VectorColumn.of(table);
    Optional<PublishedIndex> existing = SnapshotIndexes.find(table, snapshotId);
    if (existing.isPresent() && existing.get().fieldId() == column.fieldId()) {
      return existing;
    }
    SnapshotVectors vectors = TableVectors.read(table, snapshotId, column);
    if (vectors.size() == 0) {
      return Optional.empty();
    }
    Path graph = null;
    try {
      graph = Files.createTempFile(tempDir, "vamana-", ".graph");
      IndexBuilder builder = indexBuilder.withMetric(column.metric());
      GraphBuild.Result built = GraphBuild.write(table, vectors, builder, maxChangedFraction,
          tempDir, graph);
      return Optional.of(commit(table, built, builder, graph));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot build vector index of " + table.name(), e);
    } finally {
      deleteQuietly(graph);
    }
  }

  private PublishedIndex commit(Table table, GraphBuild.Result built, IndexBuilder builder,
      Path graph) throws IOException {
    SnapshotVectors vectors = built.vectors();
    for (int attempt = 1; ; attempt++) {
      StatisticsFile previous = currentStatistics(table, vectors.snapshotId());
      StatisticsFile written = write(table, built, builder, graph, previous);
      table.refresh();
      StatisticsFile now = currentStatistics(table, vectors.snapshotId());
      if (Objects.equals(path(now), path(previous)) || attempt == COMMIT_ATTEMPTS) {
        table.updateStatistics().setStatistics(written).commit();
        return SnapshotIndexes.of(written, vectors.snapshotId()).orElseThrow();
      }
      table.io().deleteFile(written.path());
    }
  }

  private StatisticsFile write(Table table, GraphBuild.Result built, IndexBuilder builder,
      Path graph, StatisticsFile previous) throws IOException {
    SnapshotVectors vectors = built.vectors();
    OutputFile out = table.io().newOutputFile(location(table, vectors.snapshotId()));
    PuffinWriter writer = Puffin.write(out).createdBy("verglas vector-index").build();
    try (PuffinWriter closing = writer; FileChannel channel = FileChannel.open(graph,
        StandardOpenOption.READ)) {
      for (Pair<BlobMetadata, ByteBuffer> kept : otherBlobs(table, previous)) {
        closing.write(copy(kept.first(), kept.second()));
      }
      long size = channel.size();
      int shards = (int) ((size + shardBytes - 1) / shardBytes);
      for (int shard = 0; shard < shards; shard++) {
        long offset = shard * shardBytes;
        ByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, offset,
            Math.min(shardBytes, size - offset));
        Map<String, String> props = properties(vectors, builder);
        props.putAll(built.properties());
        props.put(IndexBlobs.SHARD, Integer.toString(shard));
        props.put(IndexBlobs.SHARDS, Integer.toString(shards));
        closing.write(blob(IndexBlobs.GRAPH_TYPE, vectors, bytes, PuffinCompressionCodec.NONE,
            props));
      }
      closing.write(blob(IndexBlobs.ORDINALS_TYPE, vectors, vectors.rows().serialize(),
          PuffinCompressionCodec.ZSTD, properties(vectors, builder)));
    }
    return new GenericStatisticsFile(vectors.snapshotId(), out.location(), writer.fileSize(),
        writer.footerSize(), GenericBlobMetadata.from(writer.writtenBlobsMetadata()));
  }

  private static List<Pair<BlobMetadata, ByteBuffer>> otherBlobs(Table table,
      StatisticsFile previous) {
    if (previous == null) {
      return List.of();
    }
    return StatisticsBlobs.read(table.io(), previous, blob ->
        !IndexBlobs.GRAPH_TYPE.equals(blob.type())
            && !IndexBlobs.ORDINALS_TYPE.equals(blob.type()));
  }

  private static Blob copy(BlobMetadata meta, ByteBuffer data) {
    PuffinCompressionCodec codec = meta.compressionCodec() == null
        ? PuffinCompressionCodec.NONE
        : PuffinCompressionCodec.forName(meta.compressionCodec());
    return new Blob(meta.type(), meta.inputFields(), meta.snapshotId(), meta.sequenceNumber(),
        data, codec, meta.properties());
  }

  private static Blob blob(String type, SnapshotVectors vectors, ByteBuffer data,
      PuffinCompressionCodec codec, Map<String, String> properties) {
    return new Blob(type, List.of(vectors.column().fieldId()), vectors.snapshotId(),
        vectors.sequenceNumber(), data, codec, properties);
  }

  private static Map<String, String> properties(SnapshotVectors vectors, IndexBuilder builder) {
    Map<String, String> props = new HashMap<>();
    props.put(IndexBlobs.LIBRARY, "jvector");
    props.put(IndexBlobs.LIBRARY_VERSION, IndexBlobs.jvectorVersion());
    props.put(IndexBlobs.GRAPH_FORMAT_VERSION, Integer.toString(
        io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex.CURRENT_VERSION));
    props.put(IndexBlobs.FORMAT_VERSION, Integer.toString(IndexBlobs.FORMAT));
    props.put(IndexBlobs.METRIC, vectors.column().metric().id());
    props.put(IndexBlobs.DIMENSION, Integer.toString(vectors.column().dimension()));
    props.put(IndexBlobs.COUNT, Integer.toString(vectors.size()));
    props.put(IndexBlobs.MAX_DEGREE, Integer.toString(builder.maxDegree()));
    props.put(IndexBlobs.BEAM_WIDTH, Integer.toString(builder.beamWidth()));
    props.put(IndexBlobs.HIERARCHY, Boolean.toString(builder.hierarchy()));
    return props;
  }

  private static StatisticsFile currentStatistics(Table table, long snapshotId) {
    for (StatisticsFile file : table.statisticsFiles()) {
      if (file.snapshotId() == snapshotId) {
        return file;
      }
    }
    return null;
  }

  private static String path(StatisticsFile file) {
    return file == null ? null : file.path();
  }

  private static String location(Table table, long snapshotId) {
    String name = snapshotId + "-" + UUID.randomUUID() + ".stats";
    if (table instanceof HasTableOperations ops) {
      return ops.operations().metadataFileLocation(name);
    }
    return table.location() + "/metadata/" + name;
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a temporary file; the OS temp cleaner takes it
      }
    }
  }

  /** Options of a publisher; each may be set once. */
  public static final class Builder {
    private IndexBuilder indexBuilder = IndexBuilder.builder().build();
    private long shardBytes = IndexBlobs.MAX_SHARD_BYTES;
    private Path tempDir = Path.of(System.getProperty("java.io.tmpdir"));
    private double maxChangedFraction = 0.2;

    private Builder() {}

    /** How graphs are built; the metric always comes from the table's properties. */
    public Builder indexBuilder(IndexBuilder value) {
      this.indexBuilder = Objects.requireNonNull(value, "indexBuilder");
      return this;
    }

    /** Largest graph blob; bigger graphs are split into shards. At most Puffin's 2 GiB cap. */
    public Builder shardBytes(long value) {
      if (value < 1024 || value > IndexBlobs.MAX_SHARD_BYTES) {
        throw new IllegalArgumentException("Cannot set shardBytes: " + value
            + " (must be in [1024, " + IndexBlobs.MAX_SHARD_BYTES + "])");
      }
      this.shardBytes = value;
      return this;
    }

    /** Where the graph is written while it is built; the system temp directory by default. */
    public Builder tempDir(Path value) {
      this.tempDir = Objects.requireNonNull(value, "tempDir");
      return this;
    }

    /**
     * Largest share of a snapshot's rows that may have been added or removed since the last
     * full build for its index to be built incrementally from its nearest indexed ancestor's;
     * 0.2 by default, 0 turns incremental builds off.
     */
    public Builder maxChangedFraction(double value) {
      if (!(value >= 0 && value <= 1)) {
        throw new IllegalArgumentException("Cannot set maxChangedFraction: " + value
            + " (must be in [0, 1])");
      }
      this.maxChangedFraction = value;
      return this;
    }

    public IndexPublisher build() {
      return new IndexPublisher(this);
    }
  }
}
