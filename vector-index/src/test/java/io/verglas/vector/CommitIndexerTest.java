package io.verglas.vector;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommitIndexerTest {
  @TempDir Path warehouse;

  @Test
  void commitEventsIndexTheCurrentSnapshotOnceAndSkipSupersededOnes() {
    HadoopCatalog catalog = TestingVectorTable.catalog(warehouse);
    Table table = TestingVectorTable.create(catalog, "t", 8, true);
    CommitIndexer indexer = new CommitIndexer(catalog::loadTable,
        IndexPublisher.builder().build());
    TestingVectorTable.append(table, 0, TestingVectors.clustered(1, 100, 8, 2));
    Snapshot first = table.currentSnapshot();
    TestingVectorTable.append(table, 100, TestingVectors.clustered(2, 100, 8, 2));
    Snapshot second = table.currentSnapshot();

    assertThat(indexer.onEvent(event(table, first))).isEqualTo(CommitIndexer.Outcome.SUPERSEDED);
    assertThat(indexer.onEvent(event(table, second))).isEqualTo(CommitIndexer.Outcome.INDEXED);
    assertThat(indexer.onEvent(event(table, second)))
        .isEqualTo(CommitIndexer.Outcome.ALREADY_INDEXED);
    table.refresh();
    assertThat(SnapshotIndexes.find(table, second.snapshotId())).isPresent()
        .get().extracting(PublishedIndex::count).isEqualTo(200L);
    assertThat(SnapshotIndexes.find(table, first.snapshotId())).isEmpty();

    Table plain = catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "plain"),
        table.schema(), table.spec(), Map.of("format-version", "3"));
    TestingVectorTable.append(plain, 0, TestingVectors.clustered(3, 10, 8, 2));
    assertThat(indexer.onEvent(event(plain, plain.currentSnapshot())))
        .isEqualTo(CommitIndexer.Outcome.NO_VECTOR_COLUMN);
  }

  private static CatalogEvent event(Table table, Snapshot snapshot) {
    String[] name = table.name().split("\\.");
    String uuid = table.uuid().toString();
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshot.snapshotId()), "test",
        Instant.now(), List.of(name[name.length - 2], name[name.length - 1]), uuid,
        snapshot.snapshotId(), snapshot.parentId(), snapshot.operation(),
        snapshot.sequenceNumber(), snapshot.timestampMillis(), snapshot.summary(), "", 0);
  }
}
