package io.verglas.vector;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Indexes built from an earlier snapshot's index on real V3 tables: after appends, deletion
 * vectors and updates the index holds exactly the live rows (compared with a model of what the
 * test wrote), keeps recall, and is rebuilt from scratch after compaction or large changes.
 */
class IncrementalBuildTest {
  private static final long SEED = 20261203L;
  private static final int DIM = 32;
  private static final int CLUSTERS = 20;

  @TempDir Path warehouse;

  /** The table's live rows as the test wrote them: (data file, position) → vector. */
  private final Map<RowRef, float[]> model = new LinkedHashMap<>();
  private final Map<Integer, float[]> byId = new HashMap<>();
  private int nextId;
  private long nextSeed = SEED;

  @Test
  void incrementalBuildsHoldExactlyTheLiveRowsAndKeepRecall() throws Exception {
    Table table = TestingVectorTable.create(TestingVectorTable.catalog(warehouse), "t", DIM, true);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(append(table, 400));
    }
    IndexPublisher publisher = IndexPublisher.builder().tempDir(warehouse).build();
    long started = System.nanoTime();
    PublishedIndex full = publish(publisher, table);
    long fullMillis = (System.nanoTime() - started) / 1_000_000;
    assertThat(full.build()).isEqualTo("full");

    DataFile appended = append(table, 16);
    started = System.nanoTime();
    PublishedIndex index = publish(publisher, table);
    long incrementalMillis = (System.nanoTime() - started) / 1_000_000;
    System.out.printf("publish of 1 600 vectors (dim %d): full build %d ms; after appending 16 "
        + "(1%%): incremental build %d ms%n", DIM, fullMillis, incrementalMillis);
    assertIncrementalFrom(index, full);
    index = assertIncremental(table, publisher, () -> delete(table, files.get(0), 0, 30));
    index = assertIncremental(table, publisher, () -> update(table, files.get(1), 100, 140));
    index = assertIncremental(table, publisher, () -> append(table, 50));
    index = assertIncremental(table, publisher, () -> delete(table, appended, 5, 15));
    index = assertIncremental(table, publisher, () -> update(table, files.get(2), 0, 60));
    assertThat(Long.parseLong(index.properties().get(IndexBlobs.CHANGED_SINCE_FULL)))
        .isEqualTo(16 + 30 + 80 + 50 + 10 + 120);

    double recall = recallAt10(table, index.snapshotId());
    System.out.printf("seed %d: recall@10 at ef 100 after 6 incremental builds: %.4f%n", SEED,
        recall);
    assertThat(recall).isGreaterThanOrEqualTo(0.95);
  }

  @Test
  void compactionLargeChangesAndUnreadableIndexesFallBackToAFullBuild() throws Exception {
    Table table = TestingVectorTable.create(TestingVectorTable.catalog(warehouse), "t", DIM,
        false);
    DataFile first = append(table, 250);
    append(table, 250);
    IndexPublisher publisher = IndexPublisher.builder().tempDir(warehouse).build();
    PublishedIndex full = publish(publisher, table);
    assertIncremental(table, publisher, () -> delete(table, first, 0, 20));

    compact(table);
    PublishedIndex afterCompaction = publish(publisher, table);
    assertThat(afterCompaction.build()).isEqualTo("full");
    assertThat(afterCompaction.properties().get(IndexBlobs.BUILD_REASON))
        .isEqualTo("snapshot " + afterCompaction.snapshotId() + " rewrote data files");
    assertExact(table, afterCompaction);

    PublishedIndex extended = assertIncremental(table, publisher, () -> append(table, 30));
    assertIncrementalFrom(extended, afterCompaction);

    append(table, 200);
    PublishedIndex large = publish(publisher, table);
    assertThat(large.build()).isEqualTo("full");
    assertThat(large.properties().get(IndexBlobs.BUILD_REASON))
        .isEqualTo("230 rows changed since the last full build (up to 0.2 of 710 allowed)");
    assertExact(table, large);
    assertThat(full.build()).isEqualTo("full");

    append(table, 10);
    PublishedIndex off = publish(IndexPublisher.builder().maxChangedFraction(0).build(), table);
    assertThat(off.properties().get(IndexBlobs.BUILD_REASON))
        .isEqualTo("incremental builds are off");

    table.io().deleteFile(off.statisticsFile().path());
    append(table, 10);
    PublishedIndex unreadable = publish(publisher, table);
    assertThat(unreadable.build()).isEqualTo("full");
    assertThat(unreadable.properties().get(IndexBlobs.BUILD_REASON))
        .startsWith("extending snapshot " + off.snapshotId() + "'s index failed: ");
    assertExact(table, unreadable);
  }

  private PublishedIndex assertIncremental(Table table, IndexPublisher publisher, Runnable commit)
      throws Exception {
    long parent = table.currentSnapshot().snapshotId();
    commit.run();
    PublishedIndex index = publish(publisher, table);
    assertThat(index.build()).isEqualTo("incremental");
    assertThat(index.properties().get(IndexBlobs.BASE_SNAPSHOT_ID))
        .isEqualTo(Long.toString(parent));
    assertExact(table, index);
    return index;
  }

  private static void assertIncrementalFrom(PublishedIndex index, PublishedIndex base) {
    assertThat(index.build()).isEqualTo("incremental");
    assertThat(index.properties().get(IndexBlobs.BASE_SNAPSHOT_ID))
        .isEqualTo(Long.toString(base.snapshotId()));
  }

  /** The ordinal map is the model's live rows, each ordinal's vector the row's vector. */
  private void assertExact(Table table, PublishedIndex index) throws Exception {
    StoredIndex stored = StoredIndex.read(table, index);
    OrdinalMap rows = stored.rows();
    assertThat(rows.size()).isEqualTo(model.size());
    assertThat(index.count()).isEqualTo(model.size());
    HashSet<RowRef> seen = new HashSet<>();
    try (OnDiskGraphIndex graph = OnDiskGraphIndex.load(stored.readers());
        OnDiskGraphIndex.View view = graph.getView()) {
      assertThat(graph.size(0)).isEqualTo(model.size());
      VectorFloat<?> vector = VectorizationProvider.getInstance().getVectorTypeSupport()
          .createFloatVector(DIM);
      for (int ordinal = 0; ordinal < rows.size(); ordinal++) {
        RowRef row = rows.row(ordinal);
        assertThat(seen.add(row)).as("ordinal %d repeats %s", ordinal, row).isTrue();
        float[] expected = model.get(row);
        assertThat(expected).as("ordinal %d: %s is not a live row", ordinal, row).isNotNull();
        view.getVectorInto(ordinal, vector, 0);
        for (int d = 0; d < DIM; d++) {
          assertThat(vector.get(d)).isEqualTo(expected[d]);
        }
      }
    }
  }

  private double recallAt10(Table table, long snapshotId) {
    List<RowRef> rows = new ArrayList<>(model.keySet());
    ExactSearch exact = new ExactSearch(VectorMetric.L2, new ArrayList<>(model.values()));
    VectorSearcher searcher = VectorSearcher.builder().build();
    List<float[]> queries = TestingVectors.clustered(SEED, 200, DIM, CLUSTERS);
    double recall = 0;
    for (float[] query : queries) {
      HashSet<RowRef> truth = new HashSet<>();
      exact.search(query, 10, null).forEach(n -> truth.add(rows.get(n.ordinal())));
      VectorSearchResult found = searcher.search(table, snapshotId, query, 10, 100);
      assertThat(found.method()).isEqualTo(VectorSearchResult.Method.INDEX);
      recall += found.hits().stream().filter(hit -> truth.contains(hit.row())).count() / 10.0;
    }
    return recall / queries.size();
  }

  private PublishedIndex publish(IndexPublisher publisher, Table table) {
    return publisher.publish(table, table.currentSnapshot().snapshotId()).orElseThrow();
  }

  private DataFile append(Table table, int count) {
    List<float[]> vectors = TestingVectors.clustered(nextSeed++, count, DIM, CLUSTERS);
    DataFile file = TestingVectorTable.append(table, nextId, vectors);
    identify(vectors);
    remember(file, vectors);
    return file;
  }

  private void delete(Table table, DataFile file, long from, long to) {
    long[] positions = LongStream.range(from, to).toArray();
    TestingVectorTable.delete(table, file, positions);
    forget(file, positions);
  }

  private void update(Table table, DataFile file, long from, long to) {
    long[] positions = LongStream.range(from, to).toArray();
    List<float[]> vectors = TestingVectors.clustered(nextSeed++, positions.length, DIM, CLUSTERS);
    DataFile added = TestingVectorTable.update(table, file, positions, nextId, vectors);
    identify(vectors);
    forget(file, positions);
    remember(added, vectors);
  }

  private void compact(Table table) {
    TestingVectorTable.Compacted compacted = TestingVectorTable.compact(table);
    model.clear();
    remember(compacted.file(), compacted.ids().stream().map(byId::get).toList());
  }

  private void identify(List<float[]> vectors) {
    for (float[] vector : vectors) {
      byId.put(nextId++, vector);
    }
  }

  private void remember(DataFile file, List<float[]> vectors) {
    for (int i = 0; i < vectors.size(); i++) {
      model.put(new RowRef(file.location(), i), vectors.get(i));
    }
  }

  private void forget(DataFile file, long[] positions) {
    for (long position : positions) {
      assertThat(model.remove(new RowRef(file.location(), position))).isNotNull();
    }
  }
}
