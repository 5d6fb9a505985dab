package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

/** Commits classified from real Iceberg snapshots (an in-memory catalog; no file is read). */
class CommitKindTest {
  @Test
  void mapsIcebergOperations() {
    assertThat(CommitKind.of("append")).isEqualTo(CommitKind.APPEND);
    assertThat(CommitKind.of("overwrite")).isEqualTo(CommitKind.OVERWRITE);
    assertThat(CommitKind.of("delete")).isEqualTo(CommitKind.DELETE);
    assertThat(CommitKind.of("replace")).isEqualTo(CommitKind.REPLACE);
    assertThat(CommitKind.of("REPLACE")).isEqualTo(CommitKind.REPLACE);
    assertThat(CommitKind.of("something-new")).isEqualTo(CommitKind.OTHER);
    assertThat(CommitKind.of(null)).isEqualTo(CommitKind.OTHER);
  }

  @Test
  void aWalkSeesEveryCommitSinceThePreviousOneOldestFirst() {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("test", Map.of());
      catalog.createNamespace(Namespace.of("db"));
      Table table = catalog.createTable(TableIdentifier.of("db", "t"), TestingTables.SCHEMA,
          PartitionSpec.unpartitioned());
      DataFile first = file("a");
      table.newAppend().appendFile(first).commit();
      long walked = table.currentSnapshot().snapshotId();
      DataFile compacted = file("b");
      table.newRewrite().deleteFile(first).addFile(compacted).commit();
      table.newAppend().appendFile(file("c")).commit();
      TableMetadata metadata = ((HasTableOperations) table).operations().current();

      assertThat(CommitKind.since(metadata, walked)).containsExactly(CommitKind.REPLACE, CommitKind.APPEND);
      assertThat(CommitKind.since(metadata, table.currentSnapshot().snapshotId())).isEmpty();
      assertThat(CommitKind.since(metadata, -1))
          .containsExactly(CommitKind.APPEND, CommitKind.REPLACE, CommitKind.APPEND);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static DataFile file(String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned()).withPath("s3://b/db/t/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(100).withRecordCount(1).build();
  }
}
