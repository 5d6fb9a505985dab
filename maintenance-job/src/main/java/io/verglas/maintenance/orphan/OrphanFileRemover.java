package io.verglas.maintenance.orphan;

import io.verglas.events.TableMaintainedEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes files of a table that no snapshot, manifest or metadata file refers to and that are
 * older than the policy's safety age (younger ones may belong to a commit in flight). Needs a
 * FileIO that lists prefixes (S3FileIO, HadoopFileIO); others fail clearly.
 *
 * <p>Design. Which files are the table's is {@link OrphanScope}'s decision: its
 * {@code data/} and {@code metadata/} prefixes (each listed with a trailing {@code /}: an
 * object store lists key prefixes, so {@code ns/t} would also list {@code ns/t2}), minus the
 * locations of other tables nested there, which {@link NestedTables} asks the catalog for. Of
 * those, the reachable set is every file any retained snapshot names, live or deleted manifest
 * entries alike, plus metadata files, the metadata log, and statistics files: erring toward
 * keeping. A table created under this one after the catalog was asked has only files younger
 * than the safety age. Locations are compared normalized ({@link OrphanScope#normalize}).
 * Memory grows with the table's file count. A removal that deleted something is announced with
 * a {@code remove-orphan-files} event.
 */
public final class OrphanFileRemover {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFileRemover.class);

  private final Clock clock;
  private final MaintenanceEvents events;
  private final NestedTables nested;

  /** {@code catalog} is the one the tables are loaded from: it says which tables nest. */
  public OrphanFileRemover(Clock clock, MaintenanceEvents events, Catalog catalog) {
    this.clock = clock;
    this.events = events;
    this.nested = new NestedTables(catalog);
  }

  /** Removes the orphans of {@code table}; returns their locations. */
  public List<String> remove(TableIdentifier name, Table table, MaintenancePolicy policy) {
    if (!(table.io() instanceof SupportsPrefixOperations listing)) {
      throw new UnsupportedOperationException("Cannot remove orphan files of " + table.name()
          + ": its FileIO " + table.io().getClass().getName() + " cannot list files");
    }
    table.refresh();
    OrphanScope scope = scope(name, table);
    Set<String> reachable = reachable(table);
    long olderThan = clock.millis() - policy.orphanSafetyAge().toMillis();
    List<String> orphans = new ArrayList<>();
    for (FileInfo file : scope.owned(list(listing, scope.roots()))) {
      String location = OrphanScope.normalize(file.location());
      if (file.createdAtMillis() < olderThan && !reachable.contains(location)) {
        orphans.add(file.location());
      }
    }
    orphans.forEach(table.io()::deleteFile);
    if (!orphans.isEmpty()) {
      events.maintained(name, table, TableMaintainedEvent.REMOVE_ORPHAN_FILES, List.of(), orphans);
    }
    return orphans;
  }

  private OrphanScope scope(TableIdentifier name, Table table) {
    OrphanScope scope = OrphanScope.of(table.location(), table.properties(),
        nested.locations(name));
    if (!scope.unlisted().isEmpty()) {
      LOG.info("Not removing orphan files of {} under {}: outside the table location, such a "
          + "path may be shared with other tables", name, scope.unlisted());
    }
    return scope;
  }

  private static List<FileInfo> list(SupportsPrefixOperations listing, List<String> roots) {
    List<FileInfo> files = new ArrayList<>();
    for (String root : roots) {
      try {
        listing.listPrefix(root).forEach(files::add);
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof FileNotFoundException)) {
          throw e;
        }
        // A file system has no such directory yet (no data written): nothing to list.
      }
    }
    return files;
  }

  private static Set<String> reachable(Table table) {
    Set<String> files = new HashSet<>();
    if (table instanceof HasTableOperations ops) {
      TableMetadata metadata = ops.operations().current();
      add(files, metadata.metadataFileLocation());
      metadata.previousFiles().forEach(entry -> add(files, entry.file()));
      metadata.partitionStatisticsFiles().forEach(stats -> add(files, stats.path()));
    }
    for (StatisticsFile stats : table.statisticsFiles()) {
      add(files, stats.path());
    }
    Set<String> manifests = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      add(files, snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (manifests.add(manifest.path())) {
          add(files, manifest.path());
          addEntries(table, manifest, files);
        }
      }
    }
    return files;
  }

  private static void addEntries(Table table, ManifestFile manifest, Set<String> files) {
    try (ManifestReader<? extends ContentFile<?>> reader = open(table, manifest)) {
      for (ContentFile<?> file : reader) {
        add(files, file.location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
    }
  }

  private static ManifestReader<? extends ContentFile<?>> open(Table table, ManifestFile manifest) {
    return switch (manifest.content()) {
      case DATA -> ManifestFiles.read(manifest, table.io(), table.specs());
      case DELETES -> ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs());
    };
  }

  private static void add(Set<String> files, String location) {
    if (location != null) {
      files.add(OrphanScope.normalize(location));
    }
  }
}
