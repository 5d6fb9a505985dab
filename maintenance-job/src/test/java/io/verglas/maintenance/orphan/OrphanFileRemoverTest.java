package io.verglas.maintenance.orphan;

import static io.verglas.maintenance.testing.TestingFiles.append;
import static io.verglas.maintenance.testing.TestingFiles.contents;
import static io.verglas.maintenance.testing.TestingFiles.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.Catalogs;
import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import io.verglas.events.TableMaintainedEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.materializer.testing.TestingS3;
import io.verglas.materializer.testing.TestingTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Orphan removal on S3FileIO against an in-process S3 (whose listings are raw key prefixes, as
 * S3's are) with a JDBC catalog on SQLite: tables whose locations share a prefix with, or nest
 * under, the swept table's location lose nothing.
 */
class OrphanFileRemoverTest {
  private static final String BUCKET = "lake";
  private static final MaintenancePolicy POLICY = MaintenancePolicy.builder()
      .orphanSafetyAge(Duration.ofDays(1)).build();
  /** Every file the test writes is two days old by this clock: only ownership protects it. */
  private static final Clock TWO_DAYS_LATER = Clock.offset(Clock.systemUTC(), Duration.ofDays(2));
  private static final PartitionSpec USERS_SPEC =
      PartitionSpec.builderFor(TestingTables.USERS).identity("region").build();
  private static final AtomicInteger WAREHOUSES = new AtomicInteger();
  private static TestingS3 s3;

  @TempDir Path dir;
  private String warehouse;
  private Catalog catalog;
  private final List<TableMaintainedEvent> maintained = new ArrayList<>();
  private final MaintenanceEvents events = new MaintenanceEvents(new EventPublisher() {
    @Override
    public void publish(CatalogEvent event) {}

    @Override
    public void publish(TableMaintainedEvent event) {
      maintained.add(event);
    }
  });

  @BeforeAll
  static void startS3() throws Exception {
    s3 = TestingS3.start(BUCKET);
  }

  @AfterAll
  static void stopS3() throws Exception {
    s3.close();
  }

  @BeforeEach
  void createCatalog() {
    warehouse = "wh" + WAREHOUSES.incrementAndGet();
    catalog = Catalogs.load("verglas", Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        "s3://" + BUCKET + "/" + warehouse, s3.endpoint().s3FileIoProperties()));
  }

  @Test
  void removesOnlyTheTablesOwnOrphanNeverASiblingsOrANestedTablesFiles() {
    TableIdentifier t = TableIdentifier.of("ns", "t");
    Map<TableIdentifier, Map<Integer, String>> rows = new LinkedHashMap<>();
    for (TableIdentifier id : List.of(t, TableIdentifier.of("ns", "t2"),
        TableIdentifier.of("ns", "t_archive"), TableIdentifier.of(Namespace.of("ns", "t"), "x"),
        TableIdentifier.of(Namespace.of("ns", "t", "x"), "y"),
        TableIdentifier.of(Namespace.of("ns", "t"), "metadata"))) { // inside ns.t's metadata/
      rows.put(id, fill(create(id), rows.size()));
    }
    // Registered elsewhere in the catalog, located inside ns.t's data prefix: no catalog walk
    // below ns.t finds it, its metadata files in the listing do.
    TableIdentifier hidden = TableIdentifier.of("other", "hidden");
    rows.put(hidden, fill(createAt(hidden, location(t) + "/data/hidden"), rows.size()));
    assertThat(catalog.loadTable(TableIdentifier.of(Namespace.of("ns", "t"), "x")).location())
        .as("the JDBC catalog's default layout nests namespace ns.t under table ns.t")
        .isEqualTo(location(t) + "/x");
    String orphan = plant(location(t) + "/data/region=eu/crashed-writer.parquet");
    String notes = plant(location(t) + "/notes.txt"); // outside data/ and metadata/: not swept
    Set<String> before = new HashSet<>(s3.list(warehouse + "/"));

    List<String> removed = new OrphanFileRemover(TWO_DAYS_LATER, events, catalog)
        .remove(t, catalog.loadTable(t), POLICY);

    assertThat(removed).containsExactly(orphan);
    Set<String> expected = new HashSet<>(before);
    expected.remove(key(orphan));
    assertThat(new HashSet<>(s3.list(warehouse + "/"))).isEqualTo(expected).contains(key(notes));
    rows.forEach((id, model) -> assertThat(contents(catalog.loadTable(id)))
        .as("rows of %s", id).isEqualTo(model));
    assertThat(maintained).singleElement()
        .satisfies(e -> assertThat(e.deletedFiles()).containsOnly(Map.entry("data", 1L)));
  }

  /**
   * Random tables named from a few clashing words, some in namespaces below others; each gets an
   * orphan in its data prefix, then every table is swept in random order. Model: a table's sweep
   * removes exactly its orphan, unless the orphan lies in a table nested in the swept one (one
   * named {@code data} in the namespace below it); no other file goes.
   */
  @Test
  void randomNestedNamesLoseNothingButTheirOwnOrphans() {
    long seed = Long.getLong("verglas.seed", System.nanoTime());
    System.out.println("randomNestedNamesLoseNothingButTheirOwnOrphans seed " + seed);
    Random random = new Random(seed);
    List<String> words = List.of("t", "t2", "t_archive", "data", "metadata", "x");
    Map<TableIdentifier, Map<Integer, String>> rows = new LinkedHashMap<>();
    while (rows.size() < 7) {
      List<String> levels = new ArrayList<>(List.of("ns"));
      for (int depth = random.nextInt(3); depth > 0; depth--) {
        levels.add(words.get(random.nextInt(words.size())));
      }
      TableIdentifier id = TableIdentifier.of(Namespace.of(levels.toArray(String[]::new)),
          words.get(random.nextInt(words.size())));
      if (!rows.containsKey(id)) {
        rows.put(id, fill(create(id), rows.size()));
      }
    }
    Map<TableIdentifier, String> orphans = new LinkedHashMap<>();
    rows.keySet().forEach(id -> orphans.put(id,
        plant(location(id) + "/data/region=eu/orphan-" + id + ".parquet")));
    Set<String> remaining = new HashSet<>(s3.list(warehouse + "/"));
    List<TableIdentifier> order = new ArrayList<>(rows.keySet());
    Collections.shuffle(order, random);
    OrphanFileRemover remover = new OrphanFileRemover(TWO_DAYS_LATER, events, catalog);

    for (TableIdentifier id : order) {
      List<String> removed = remover.remove(id, catalog.loadTable(id), POLICY);

      String orphan = orphans.get(id);
      boolean held = rows.keySet().stream().map(this::location).anyMatch(nested ->
          nested.startsWith(location(id) + "/") && orphan.startsWith(nested + "/"));
      assertThat(removed).as("seed %s, tables %s, sweep of %s", seed, rows.keySet(), id)
          .isEqualTo(held ? List.of() : List.of(orphan));
      remaining.remove(key(orphan));
      if (held) {
        remaining.add(key(orphan));
      }
      assertThat(new HashSet<>(s3.list(warehouse + "/"))).as("seed %s, after %s", seed, id)
          .isEqualTo(remaining);
    }
    rows.forEach((id, model) -> assertThat(contents(catalog.loadTable(id)))
        .as("seed %s, rows of %s", seed, id).isEqualTo(model));
  }

  /** Two commits of ten rows each (ids from {@code 100 * n}); returns the rows as read back. */
  private static Map<Integer, String> fill(Table table, int n) {
    for (int commit = 0; commit < 2; commit++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        int id = 100 * n + 10 * commit + i;
        records.add(user(table, id, "n" + id, "eu", id));
      }
      append(table, records);
    }
    Map<Integer, String> rows = contents(table);
    assertThat(rows).hasSize(20);
    return rows;
  }

  private Table create(TableIdentifier id) {
    return TestingTables.create(catalog, id, TestingTables.USERS, USERS_SPEC);
  }

  private Table createAt(TableIdentifier id, String location) {
    ((SupportsNamespaces) catalog).createNamespace(id.namespace());
    return catalog.buildTable(id, TestingTables.USERS)
        .withPartitionSpec(USERS_SPEC)
        .withLocation(location).withProperty("format-version", "3").create();
  }

  /** The JDBC catalog's default location: the warehouse, the namespace levels, the name. */
  private String location(TableIdentifier id) {
    return "s3://" + BUCKET + "/" + warehouse + "/"
        + String.join("/", id.namespace().levels()) + "/" + id.name();
  }

  private static String plant(String location) {
    try (S3Client client = s3.endpoint().newClient()) {
      client.putObject(b -> b.bucket(BUCKET).key(key(location)),
          RequestBody.fromString("not a table's file"));
    }
    return location;
  }

  private static String key(String location) {
    return location.substring(("s3://" + BUCKET + "/").length());
  }
}
