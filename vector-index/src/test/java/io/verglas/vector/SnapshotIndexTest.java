package io.verglas.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinCompressionCodec;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.util.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Indexes on real V3 tables with deletion vectors, published and read through Puffin. */
class SnapshotIndexTest {
  private static final long SEED = 42L;
  private static final int DIM = 16;

  @TempDir Path warehouse;

  @Test
  void anIndexServesOnlyItsOwnSnapshot() {
    Table table = TestingVectorTable.create(TestingVectorTable.catalog(warehouse), "t", DIM, true);
    List<float[]> first = TestingVectors.clustered(SEED, 300, DIM, 4);
    TestingVectorTable.append(table, 0, first);
    long s1 = table.currentSnapshot().snapshotId();
    IndexPublisher.builder().build().publish(table, s1).orElseThrow();
    TestingVectorTable.append(table, 300, TestingVectors.clustered(SEED + 1, 50, DIM, 4));
    long s2 = table.currentSnapshot().snapshotId();

    assertThat(SnapshotIndexes.find(table, s1)).isPresent();
    assertThat(SnapshotIndexes.find(table, s2)).isEmpty();
    VectorSearcher searcher = VectorSearcher.builder().build();
    VectorSearchResult atS1 = searcher.search(table, s1, first.get(3), 5, 40);
    VectorSearchResult atS2 = searcher.search(table, s2, first.get(3), 5, 40);
    assertThat(atS1.method()).isEqualTo(VectorSearchResult.Method.INDEX);
    assertThat(atS1.snapshotId()).isEqualTo(s1);
    assertThat(atS2.method()).isEqualTo(VectorSearchResult.Method.EXACT);
    assertThat(atS2.reason()).isEqualTo("no index for snapshot " + s2);
    assertThat(atS1.hits().get(0).row()).isEqualTo(atS2.hits().get(0).row());
    assertThat(atS1.hits().get(0).row().position()).isEqualTo(3);
  }

  @Test
  void rowsDeletedByDeletionVectorsAreNeverReturned() {
    Table table = TestingVectorTable.create(TestingVectorTable.catalog(warehouse), "t", DIM,
        false);
    List<float[]> vectors = TestingVectors.clustered(SEED, 400, DIM, 4);
    DataFile file = TestingVectorTable.append(table, 0, vectors);
    long before = table.currentSnapshot().snapshotId();
    TestingVectorTable.delete(table, file, 10, 11, 12);
    long after = table.currentSnapshot().snapshotId();

    PublishedIndex index = IndexPublisher.builder().build().publish(table, after).orElseThrow();
    assertThat(index.count()).isEqualTo(397);
    VectorSearcher searcher = VectorSearcher.builder().build();
    for (int deleted = 10; deleted <= 12; deleted++) {
      VectorSearchResult result = searcher.search(table, after, vectors.get(deleted), 20, 40);
      assertThat(result.method()).isEqualTo(VectorSearchResult.Method.INDEX);
      assertThat(result.hits()).hasSize(20)
          .noneMatch(hit -> hit.row().position() >= 10 && hit.row().position() <= 12);
    }
    VectorSearchResult exact = searcher.search(table, before, vectors.get(10), 1, 10);
    assertThat(exact.hits().get(0).row().position()).isEqualTo(10);

    // An index built before the deletes (snapshot `before`) holds the rows; the search-time
    // filter of the later snapshot rejects exactly them.
    SnapshotVectors old = TableVectors.read(table, before);
    BitSet live = LiveRows.of(table, after, old.rows()).orElseThrow();
    assertThat(live.cardinality()).isEqualTo(397);
    assertThat(live.get(10) || live.get(11) || live.get(12)).isFalse();
  }

  @Test
  void otherWritersBlobsArePreservedAndPublishingTwiceWritesNothing() throws Exception {
    Table table = TestingVectorTable.create(TestingVectorTable.catalog(warehouse), "t", DIM, true);
    TestingVectorTable.append(table, 0, TestingVectors.clustered(SEED, 200, DIM, 4));
    long snapshot = table.currentSnapshot().snapshotId();
    ByteBuffer sketch = ByteBuffer.wrap("theta sketch bytes".getBytes(StandardCharsets.UTF_8));
    publishForeign(table, snapshot, sketch);

    IndexPublisher publisher = IndexPublisher.builder().build();
    PublishedIndex index = publisher.publish(table, snapshot).orElseThrow();
    StatisticsFile stats = table.statisticsFiles().get(0);
    assertThat(table.statisticsFiles()).hasSize(1);
    assertThat(stats.path()).isEqualTo(index.statisticsFile().path());
    List<Pair<BlobMetadata, ByteBuffer>> theta = StatisticsBlobs.read(table.io(), stats,
        blob -> blob.type().equals("apache-datasketches-theta-v1"));
    assertThat(theta).hasSize(1);
    assertThat(theta.get(0).second()).isEqualTo(sketch.rewind());
    assertThat(theta.get(0).first().properties()).containsEntry("ndv", "17");
    assertThat(theta.get(0).first().compressionCodec()).isEqualTo("zstd");
    Map<String, String> graph = stats.blobMetadata().stream()
        .filter(b -> b.type().equals(IndexBlobs.GRAPH_TYPE)).findFirst().orElseThrow()
        .properties();
    assertThat(graph).containsEntry("library", "jvector").containsEntry("library-version", "4.0.2")
        .containsEntry("metric", "l2").containsEntry("dimension", "16")
        .containsEntry("format-version", "1").containsKey("graph-format-version");

    assertThat(publisher.publish(table, snapshot).orElseThrow().statisticsFile().path())
        .isEqualTo(stats.path());
    table.refresh();
    assertThat(table.statisticsFiles().get(0).path()).isEqualTo(stats.path());
  }

  @Test
  void indexesSurviveARestartAndShardAcrossBlobs() {
    HadoopCatalog catalog = TestingVectorTable.catalog(warehouse);
    Table table = TestingVectorTable.create(catalog, "t", DIM, true);
    List<float[]> vectors = TestingVectors.clustered(SEED, 500, DIM, 4);
    TestingVectorTable.append(table, 0, vectors);
    long snapshot = table.currentSnapshot().snapshotId();
    PublishedIndex index = IndexPublisher.builder().shardBytes(4096).build()
        .publish(table, snapshot).orElseThrow();
    long shards = index.statisticsFile().blobMetadata().stream()
        .filter(b -> b.type().equals(IndexBlobs.GRAPH_TYPE)).count();
    assertThat(shards).isGreaterThan(3);
    VectorSearchResult before = VectorSearcher.builder().build()
        .search(table, snapshot, vectors.get(99), 10, 40);

    Table reopened = TestingVectorTable.catalog(warehouse)
        .loadTable(TableIdentifier.of("db", "t"));
    VectorSearchResult after = VectorSearcher.builder().build()
        .search(reopened, snapshot, vectors.get(99), 10, 40);
    assertThat(after.method()).isEqualTo(VectorSearchResult.Method.INDEX);
    assertThat(after.hits()).isEqualTo(before.hits());
    assertThat(after.hits().get(0).row().position()).isEqualTo(99);
  }

  @Test
  void exactSearchIsRefusedAboveTheLimitAndTheCacheIsBounded() {
    Table table = TestingVectorTable.create(TestingVectorTable.catalog(warehouse), "t", DIM, true);
    TestingVectorTable.append(table, 0, TestingVectors.clustered(SEED, 200, DIM, 4));
    long snapshot = table.currentSnapshot().snapshotId();
    VectorSearcher strict = VectorSearcher.builder().exactSearchMaxRows(100).build();
    assertThatThrownBy(() -> strict.search(table, snapshot, new float[DIM], 5, 10))
        .isInstanceOf(ExactSearchRefusedException.class)
        .hasMessageContaining("no index for snapshot " + snapshot)
        .hasMessageContaining("200 rows exceed the exact-search limit of 100");

    IndexPublisher.builder().build().publish(table, snapshot).orElseThrow();
    assertThat(strict.search(table, snapshot, new float[DIM], 5, 10).method())
        .isEqualTo(VectorSearchResult.Method.INDEX);
    assertThat(strict.cachedBytes()).isPositive();
    VectorSearcher tiny = VectorSearcher.builder().cacheMaxBytes(1024).build();
    assertThat(tiny.search(table, snapshot, new float[DIM], 5, 10).hits()).hasSize(5);
    assertThat(tiny.cachedBytes()).isZero();
  }

  private static void publishForeign(Table table, long snapshot, ByteBuffer data)
      throws Exception {
    OutputFile out = table.io().newOutputFile(table.location() + "/metadata/theta.stats");
    PuffinWriter writer = Puffin.write(out).createdBy("another engine").build();
    try (PuffinWriter closing = writer) {
      closing.write(new Blob("apache-datasketches-theta-v1", List.of(1), snapshot,
          table.currentSnapshot().sequenceNumber(), data.duplicate(), PuffinCompressionCodec.ZSTD,
          Map.of("ndv", "17")));
    }
    table.updateStatistics().setStatistics(new GenericStatisticsFile(snapshot, out.location(),
        writer.fileSize(), writer.footerSize(),
        GenericBlobMetadata.from(writer.writtenBlobsMetadata()))).commit();
  }
}
