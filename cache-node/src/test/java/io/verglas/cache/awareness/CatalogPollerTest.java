package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.MetadataLocations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The poller over a real (in-memory) Iceberg catalog, with a warmer that records its walks. */
class CatalogPollerTest {
  private final AwarenessCounters counters = new AwarenessCounters();
  private final List<String> walked = Collections.synchronizedList(new ArrayList<>());
  private final KnownTables known = new KnownTables(100);
  private final TableWarmer warmer = new TableWarmer((table, location) -> {
    walked.add(table + "@" + location);
    return 1;
  }, 100, counters);
  private final AtomicReference<Catalog> catalog = new AtomicReference<>();
  private final AtomicReference<MetadataLocations> locations = new AtomicReference<>();
  private final AtomicLong clock = new AtomicLong();
  private final AtomicLong slept = new AtomicLong();
  private int files;

  @BeforeEach
  void start() {
    warmer.start();
  }

  @AfterEach
  void close() {
    warmer.close();
  }

  @Test
  void aCommitTheFeedDeliveredIsNotWalkedAgainButTheNextOneIs() throws InterruptedException {
    InMemoryCatalog memory = catalog();
    Table table = create(memory, Namespace.of("db"), "t");
    String first = location(table);
    known.putIfChanged("db.t", first); // what the watcher records for the commit's event

    assertThat(poller(100).poll()).isZero();
    String second = append(table);
    assertThat(poller(100).poll()).isEqualTo(1);
    assertThat(poller(100).poll()).isZero();

    awaitWalks();
    assertThat(walked).containsExactly("db.t@" + second);
    assertThat(known.snapshot()).containsEntry("db.t", second);
    assertThat(counters.polls.sum()).isEqualTo(3);
    assertThat(counters.tablesPolled.sum()).isEqualTo(3);
    assertThat(counters.commitsPolled.sum()).isEqualTo(1);
  }

  @Test
  void theFirstPollWalksTheTablesOfEveryNamespaceLevel() throws InterruptedException {
    CatalogPoller poller = poller(100);
    assertThat(poller.poll()).as("no catalog yet").isZero();
    assertThat(counters.polls.sum()).isZero();

    InMemoryCatalog memory = catalog();
    String top = location(create(memory, Namespace.of("a"), "top"));
    String nested = location(create(memory, Namespace.of("a", "b"), "nested"));
    assertThat(poller.poll()).isEqualTo(2);
    awaitWalks();
    assertThat(walked).containsExactlyInAnyOrder("a.top@" + top, "a.b.nested@" + nested);
  }

  @Test
  void aTableThatCannotBeLoadedIsCountedAndThePollGoesOn() throws InterruptedException {
    InMemoryCatalog memory = new InMemoryCatalog() {
      @Override
      public Table loadTable(TableIdentifier identifier) {
        if (identifier.name().equals("broken")) {
          throw new IllegalStateException("metadata file unreadable");
        }
        return super.loadTable(identifier);
      }
    };
    memory.initialize("test", Map.of());
    catalog.set(memory);
    create(memory, Namespace.of("db"), "broken");
    String fine = location(create(memory, Namespace.of("db"), "fine"));
    assertThat(poller(100).poll()).isEqualTo(1);
    awaitWalks();
    assertThat(walked).containsExactly("db.fine@" + fine);
    assertThat(counters.pollFailures.sum()).isEqualTo(1);
  }

  @Test
  void tableLoadsArePacedByTheRate() throws InterruptedException {
    InMemoryCatalog memory = catalog();
    for (int t = 0; t < 6; t++) {
      create(memory, Namespace.of("db"), "t" + t);
    }
    poller(2).poll();
    // two loads of credit, then one load per half second (a load may overdraw by one)
    assertThat(slept.get()).isBetween(1_000_000_000L, 2_000_000_000L);
  }

  private CatalogPoller poller(int tablesPerSecond) {
    ByteRate.Sleeper sleeper = nanos -> {
      slept.addAndGet(nanos);
      clock.addAndGet(nanos);
    };
    WarmingThrottle throttle = new WarmingThrottle(1, new ByteRate(tablesPerSecond, clock::get, sleeper),
        () -> false, sleeper, Awareness.MAX_YIELD_NANOS, counters);
    return new CatalogPoller(catalog::get, locations::get, Duration.ofMinutes(1), throttle, 100,
        warmer, known, counters);
  }

  @Test
  void withTheCatalogsListingOfLocationsAPollLoadsNoTableAndWalksOnlyTheChangedOnes()
      throws InterruptedException {
    InMemoryCatalog memory = new InMemoryCatalog() {
      @Override
      public Table loadTable(TableIdentifier identifier) {
        throw new AssertionError("a poll with a listing of locations loaded " + identifier);
      }
    };
    memory.initialize("test", Map.of());
    Map<TableIdentifier, String> listing = new java.util.LinkedHashMap<>();
    for (String name : List.of("a", "b", "c")) {
      TableIdentifier id = TableIdentifier.of(Namespace.of("db"), name);
      listing.put(id, "memory:/db/" + name + "/metadata/v1.metadata.json");
    }
    catalog.set(memory);
    locations.set(listing::forEach);

    assertThat(poller(100).poll()).isEqualTo(3);
    awaitWalks(); // a table's pending walk would give way to its newer commit
    listing.put(TableIdentifier.of(Namespace.of("db"), "b"), "memory:/db/b/metadata/v2.metadata.json");
    assertThat(poller(100).poll()).isEqualTo(1);
    assertThat(poller(100).poll()).isZero();

    awaitWalks();
    assertThat(walked).containsExactlyInAnyOrder("db.a@memory:/db/a/metadata/v1.metadata.json",
        "db.b@memory:/db/b/metadata/v1.metadata.json", "db.c@memory:/db/c/metadata/v1.metadata.json",
        "db.b@memory:/db/b/metadata/v2.metadata.json");
    assertThat(counters.tablesPolled.sum()).isEqualTo(9);
    assertThat(counters.pollFailures.sum()).isZero();
  }

  @Test
  void aTableCreatedWithoutDataIsRecordedButNotWalkedUntilItsFirstCommit()
      throws InterruptedException {
    InMemoryCatalog memory = catalog();
    memory.createNamespace(Namespace.of("db"));
    Table table = memory.createTable(TableIdentifier.of(Namespace.of("db"), "empty"),
        TestingTables.SCHEMA);

    assertThat(poller(100).poll()).isZero();
    assertThat(known.knows("db.empty")).isTrue();
    assertThat(known.snapshot()).doesNotContainKey("db.empty"); // by hash only: nothing to walk
    assertThat(poller(100).poll()).isZero();
    String first = append(table);
    assertThat(poller(100).poll()).isEqualTo(1);

    awaitWalks();
    assertThat(walked).containsExactly("db.empty@" + first);
  }

  @Test
  void inTheListingOfLocationsATablesFirstMetadataFileIsNotWalked() throws InterruptedException {
    catalog();
    Map<TableIdentifier, String> listing = new java.util.LinkedHashMap<>();
    TableIdentifier id = TableIdentifier.of(Namespace.of("db"), "t");
    listing.put(id, "memory:/db/t/metadata/00000-6b1c.metadata.json");
    locations.set(listing::forEach);

    assertThat(poller(100).poll()).isZero();
    listing.put(id, "memory:/db/t/metadata/00001-9a2d.metadata.json");
    assertThat(poller(100).poll()).isEqualTo(1);

    awaitWalks();
    assertThat(walked).containsExactly("db.t@memory:/db/t/metadata/00001-9a2d.metadata.json");
    assertThat(CatalogPoller.isFirstMetadata("s3://b/w/00000-x/metadata/00001-y.metadata.json"))
        .isFalse();
  }

  private void awaitWalks() {
    Eventually.await("the walks", () -> warmer.pending() == 0);
  }

  private InMemoryCatalog catalog() {
    InMemoryCatalog memory = new InMemoryCatalog();
    memory.initialize("test", Map.of());
    catalog.set(memory);
    return memory;
  }

  private Table create(InMemoryCatalog memory, Namespace namespace, String name) {
    for (int level = 1; level <= namespace.length(); level++) {
      Namespace prefix = Namespace.of(Arrays.copyOf(namespace.levels(), level));
      if (!memory.namespaceExists(prefix)) {
        memory.createNamespace(prefix);
      }
    }
    Table table = memory.createTable(TableIdentifier.of(namespace, name), TestingTables.SCHEMA);
    append(table);
    return table;
  }

  /** Commits one (unwritten) data file; returns the new metadata location. */
  private String append(Table table) {
    table.newAppend().appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("memory:/data/file-" + files++ + ".parquet").withFileSizeInBytes(10)
        .withRecordCount(1).withFormat(FileFormat.PARQUET).build()).commit();
    return location(table);
  }

  private static String location(Table table) {
    table.refresh();
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }
}
