package io.verglas.maintenance.manifest;

import static io.verglas.maintenance.testing.TestingFiles.append;
import static io.verglas.maintenance.testing.TestingFiles.contents;
import static io.verglas.maintenance.testing.TestingFiles.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestRewriterTest {
  static final TableIdentifier NAME = TableIdentifier.of("db", "users");

  @TempDir Path dir;

  @Test
  void manySmallManifestsAreMergedOnceTheyReachTheThreshold() {
    Table table = TestingTables.createUsers(LocalTables.catalog(dir), "db", "users");
    for (int i = 0; i < 6; i++) {
      append(table, List.of(user(table, i, "n" + i, i % 2 == 0 ? "eu" : "us", i)));
    }
    Map<Integer, String> before = contents(table);
    List<CatalogEvent> events = new ArrayList<>();
    ManifestRewriter rewriter = new ManifestRewriter(new MaintenanceEvents(events::add));
    MaintenancePolicy policy = MaintenancePolicy.builder().manifestCountThreshold(6).build();
    assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(6);

    Optional<Snapshot> rewritten = rewriter.rewrite(NAME, table, policy);

    assertThat(rewritten).isPresent();
    assertThat(rewritten.get().operation()).isEqualTo("replace");
    assertThat(rewritten.get().summary()).containsEntry("verglas.maintenance", "manifest-rewrite");
    assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(1);
    assertThat(contents(table)).isEqualTo(before);
    assertThat(events).singleElement()
        .satisfies(e -> assertThat(e.snapshotId()).isEqualTo(rewritten.get().snapshotId()));
    // One manifest left: below the threshold, nothing to do.
    assertThat(rewriter.rewrite(NAME, table, policy)).isEmpty();
  }

  @Test
  void fewerSmallManifestsThanTheThresholdAreLeftAlone() {
    Table table = TestingTables.createUsers(LocalTables.catalog(dir), "db", "users");
    for (int i = 0; i < 3; i++) {
      append(table, List.of(user(table, i, "n" + i, "eu", i)));
    }
    long snapshot = table.currentSnapshot().snapshotId();
    assertThat(new ManifestRewriter(new MaintenanceEvents(e -> {}))
        .rewrite(NAME, table, MaintenancePolicy.defaults())).isEmpty();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }
}
