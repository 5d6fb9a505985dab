package io.verglas.maintenance.expire;

import static io.verglas.maintenance.testing.TestingFiles.contents;
import static io.verglas.maintenance.testing.TestingFiles.deletePositions;
import static io.verglas.maintenance.testing.TestingFiles.user;
import static io.verglas.maintenance.testing.TestingFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import io.verglas.events.TableMaintainedEvent;
import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.orphan.OrphanFileRemover;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExpiryAndOrphansTest {
  static final TableIdentifier NAME = TableIdentifier.of("db", "users");
  /** Everything older than now expires; one snapshot is the minimum. */
  static final MaintenancePolicy EXPIRE_ALL = MaintenancePolicy.builder()
      .snapshotMaxAge(Duration.ZERO).snapshotMinCount(1).deleteFileCountThreshold(1)
      .orphanSafetyAge(Duration.ofDays(1)).build();

  @TempDir Path dir;
  Catalog catalog;
  Table table;
  final List<TableMaintainedEvent> maintained = new ArrayList<>();
  final MaintenanceEvents events = new MaintenanceEvents(new EventPublisher() {
    @Override
    public void publish(CatalogEvent event) {}

    @Override
    public void publish(TableMaintainedEvent event) {
      maintained.add(event);
    }
  });
  final Compactor compactor = new Compactor(events);
  final Clock inOneSecond = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(1));
  final SnapshotExpirer expirer = new SnapshotExpirer(inOneSecond, events);

  @BeforeEach
  void create() {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.createUsers(catalog, "db", "users");
  }

  List<Record> rows(int from, String region) {
    List<Record> rows = new ArrayList<>();
    for (int id = from; id < from + 10; id++) {
      rows.add(user(table, id, "n" + id, region, id));
    }
    return rows;
  }

  /** An append as the materializer commits it: with its WAL mark in the summary. */
  DataFile materialize(int from, long walSegment) {
    DataFile file = write(table, rows(from, "eu"));
    table.newAppend().appendFile(file).set("verglas.wal.ingest-1", Long.toString(walSegment))
        .commit();
    return file;
  }

  static boolean exists(String location) {
    return Files.exists(Path.of(java.net.URI.create(location.startsWith("file:/")
        && !location.startsWith("file:///") ? "file://" + location.substring(5) : location)));
  }

  String metadataLocation() {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }

  /** Manifests only snapshots other than the current one reach. */
  Set<String> manifestsOfOlderSnapshots() {
    Set<String> manifests = new HashSet<>();
    table.snapshots().forEach(s -> s.allManifests(table.io()).forEach(m -> manifests.add(m.path())));
    table.currentSnapshot().allManifests(table.io()).forEach(m -> manifests.remove(m.path()));
    return manifests;
  }

  @Test
  void expiredSnapshotsUnreachableFilesAreDeletedAndReachableOnesKept() {
    DataFile a = materialize(0, 1);
    DataFile b = materialize(10, 2);
    DeleteFile dv = deletePositions(table, a, 3);
    assertThat(compactor.compact(NAME, table, EXPIRE_ALL).commits()).isEqualTo(1);
    DataFile d = materialize(100, 3);
    Map<Integer, String> before = contents(table);
    List<String> oldManifestLists = new ArrayList<>();
    List<Long> oldSnapshots = new ArrayList<>();
    table.snapshots().forEach(s -> {
      if (s.snapshotId() != table.currentSnapshot().snapshotId()) {
        oldManifestLists.add(s.manifestListLocation());
        oldSnapshots.add(s.snapshotId());
      }
    });
    Set<String> oldManifests = manifestsOfOlderSnapshots();

    ExpiryResult result = expirer.expire(NAME, table, EXPIRE_ALL);

    assertThat(result.expired()).isEqualTo(4);
    assertThat(result.remaining()).isEqualTo(1);
    assertThat(result.protectedSnapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    assertThat(List.of(a.location(), b.location(), dv.location()))
        .as("files only expired snapshots reached").noneMatch(ExpiryAndOrphansTest::exists);
    assertThat(oldManifestLists).noneMatch(ExpiryAndOrphansTest::exists);
    assertThat(exists(d.location())).isTrue();
    assertThat(contents(table)).isEqualTo(before);
    assertThat(maintained).singleElement().satisfies(event -> {
      assertThat(event.operation()).isEqualTo(TableMaintainedEvent.EXPIRE_SNAPSHOTS);
      assertThat(event.table()).containsExactly("db", "users");
      assertThat(event.tableUuid()).isEqualTo(table.uuid().toString());
      assertThat(event.id()).isEqualTo(table.uuid() + ":expire-snapshots:" + event.commitId());
      assertThat(event.source()).isEqualTo(MaintenanceEvents.SOURCE);
      assertThat(event.metadataLocation()).isEqualTo(metadataLocation());
      assertThat(event.expiredSnapshotIds()).containsExactlyInAnyOrderElementsOf(oldSnapshots);
      assertThat(event.deletedFiles()).containsOnly(Map.entry("data", 2L),
          Map.entry("puffin", 1L), Map.entry("manifest-list", (long) oldManifestLists.size()),
          Map.entry("manifest", (long) oldManifests.size()));
    });
  }

  @Test
  void anExpiryThatExpiresNothingEmitsNoEvent() {
    materialize(0, 1);
    assertThat(expirer.expire(NAME, table, EXPIRE_ALL).expired()).isZero();
    materialize(10, 2);
    assertThat(expirer.expire(NAME, table, EXPIRE_ALL).expired()).isEqualTo(1);
    assertThat(expirer.expire(NAME, table, EXPIRE_ALL).expired()).isZero();

    assertThat(maintained).singleElement().extracting(TableMaintainedEvent::expiredSnapshotIds)
        .asList().hasSize(1);
  }

  @Test
  void aFailedPublishDoesNotFailTheExpiry() {
    DataFile first = materialize(0, 1);
    deletePositions(table, first, 2);
    materialize(10, 2);
    EventPublisher commitsOnly = event -> {}; // rejects maintenance events
    SnapshotExpirer rejected = new SnapshotExpirer(inOneSecond, new MaintenanceEvents(commitsOnly));

    assertThat(rejected.expire(NAME, table, EXPIRE_ALL).expired()).isEqualTo(2);
    assertThat(table.snapshots()).hasSize(1);
  }

  @Test
  void theMaterializersLastSnapshotAndTaggedSnapshotsSurviveExpiry() {
    DataFile first = materialize(0, 1);
    table.manageSnapshots().createTag("reader-1", table.currentSnapshot().snapshotId()).commit();
    DataFile second = materialize(10, 7);
    Snapshot lastWal = table.currentSnapshot();
    deletePositions(table, second, 1); // another writer: no WAL marks
    assertThat(compactor.compact(NAME, table, EXPIRE_ALL).commits()).isEqualTo(1);

    ExpiryResult result = expirer.expire(NAME, table, EXPIRE_ALL);

    assertThat(result.protectedSnapshotId()).isEqualTo(lastWal.snapshotId());
    assertThat(table.snapshot(lastWal.snapshotId())).isNotNull();
    assertThat(WalSummary.committed(table)).containsEntry("ingest-1", new WalMark(7, 0));
    assertThat(table.snapshot(table.refs().get("reader-1").snapshotId())).isNotNull();
    assertThat(exists(first.location())).as("reachable from the tag").isTrue();
    assertThat(result.remaining()).isEqualTo(4); // tag, WAL commit, DV commit, compaction
  }

  @Test
  void orphansOlderThanTheSafetyAgeAreRemovedYoungerOnesSurvive() throws IOException {
    materialize(0, 1);
    deletePositions(table, materialize(10, 2), 4);
    compactor.compact(NAME, table, EXPIRE_ALL);
    Map<Integer, String> before = contents(table);
    Path data = dir.resolve("warehouse/db/users/data");
    Path old = Files.writeString(data.resolve("crashed-writer-old.parquet"), "x");
    Path young = Files.writeString(data.resolve("in-flight-young.parquet"), "y");
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofDays(3))));
    // Every file the table refers to is older than the safety age too: only reachability
    // protects them.
    try (var files = Files.walk(dir.resolve("warehouse"))) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        if (!file.equals(young)) {
          Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        }
      }
    }

    String metadata = metadataLocation();
    OrphanFileRemover remover = new OrphanFileRemover(Clock.systemUTC(), events, catalog);

    List<String> removed = remover.remove(NAME, table, EXPIRE_ALL);

    assertThat(removed).singleElement().satisfies(l -> assertThat(l).endsWith("crashed-writer-old.parquet"));
    assertThat(Files.exists(old)).isFalse();
    assertThat(Files.exists(young)).isTrue();
    for (Snapshot snapshot : table.snapshots()) {
      assertThat(io.verglas.maintenance.testing.ContentHash.rows(table, snapshot.snapshotId()))
          .as("snapshot %s still readable", snapshot.snapshotId()).isNotNull();
    }
    assertThat(contents(table)).isEqualTo(before);
    assertThat(maintained).singleElement().satisfies(event -> {
      assertThat(event.operation()).isEqualTo(TableMaintainedEvent.REMOVE_ORPHAN_FILES);
      assertThat(event.id()).isEqualTo(table.uuid() + ":remove-orphan-files:" + event.commitId());
      assertThat(event.metadataLocation()).as("orphan removal writes no metadata")
          .isEqualTo(metadata);
      assertThat(event.expiredSnapshotIds()).isEmpty();
      assertThat(event.deletedFiles()).containsOnly(Map.entry("data", 1L));
    });
    assertThat(remover.remove(NAME, table, EXPIRE_ALL)).isEmpty();
    assertThat(maintained).as("nothing removed, nothing announced").hasSize(1);
  }

  @Test
  void aTableWithoutDataFilesHasNothingToRemove() {
    assertThat(Files.exists(dir.resolve("warehouse/db/users/data"))).isFalse();

    assertThat(new OrphanFileRemover(Clock.offset(Clock.systemUTC(), Duration.ofDays(2)), events,
        catalog).remove(NAME, table, EXPIRE_ALL)).isEmpty();
    assertThat(exists(metadataLocation())).isTrue();
  }

  @Test
  void aFileIoThatCannotListFailsClearly() {
    InMemoryCatalog memory = new InMemoryCatalog();
    memory.initialize("mem", Map.of());
    memory.createNamespace(Namespace.of("db"));
    Table inMemory = memory.createTable(NAME, TestingTables.USERS);
    assertThat(inMemory.io()).isInstanceOf(InMemoryFileIO.class);
    assertThatThrownBy(() -> new OrphanFileRemover(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
        events, memory).remove(NAME, inMemory, EXPIRE_ALL))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("cannot list files");
  }
}
