package io.verglas.cache.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

/**
 * Walks what a table's current snapshot references, with Iceberg's own parsers: the metadata
 * file, the manifest list and every manifest are read through the given {@link FileIO} (so
 * whatever backs it sees each of them), and the files they list are handed to a visitor.
 *
 * <p>Only the current snapshot of the main branch is walked: that is what the next query plans
 * against. Other branches and tags, and older snapshots kept for time travel, are left to demand.
 * Manifests are read one after another; a visitor that throws stops the walk.
 */
public final class TableFiles {
  /** What a referenced file holds. */
  public enum Kind { DATA, DELETES, STATISTICS }

  /**
   * A file the snapshot references, with its size from the metadata (no request needed), its
   * partition as a path ({@code "day=2024-01-01/region=eu"}; empty when unpartitioned) and the
   * sequence number of the commit that added it (0 when unknown: v1 tables, statistics).
   */
  public record Referenced(String location, long sizeBytes, FileFormat format, Kind kind, String partition,
      long addedSequenceNumber) {}

  private TableFiles() {}

  /**
   * Reads the metadata file at {@code metadataLocation} and, if the table has a current
   * snapshot, its manifest list and manifests; returns the parsed metadata.
   */
  public static TableMetadata walk(FileIO io, String metadataLocation, Consumer<Referenced> visitor) {
    TableMetadata metadata = TableMetadataParser.read(io, metadataLocation);
    Snapshot snapshot = metadata.currentSnapshot();
    if (snapshot == null) {
      return metadata;
    }
    for (ManifestFile manifest : snapshot.allManifests(io)) {
      visitManifest(io, manifest, metadata.specsById(), visitor);
    }
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      if (stats.snapshotId() == snapshot.snapshotId()) {
        visitor.accept(new Referenced(stats.path(), stats.fileSizeInBytes(), FileFormat.PUFFIN,
            Kind.STATISTICS, "", 0));
      }
    }
    return metadata;
  }

  private static void visitManifest(FileIO io, ManifestFile manifest,
      Map<Integer, PartitionSpec> specs, Consumer<Referenced> visitor) {
    switch (manifest.content()) {
      case DATA -> {
        try (ManifestReader<org.apache.iceberg.DataFile> files = ManifestFiles.read(manifest, io, specs)) {
          files.forEach(file -> visitor.accept(referenced(file, Kind.DATA, specs)));
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
      }
      case DELETES -> {
        try (ManifestReader<org.apache.iceberg.DeleteFile> files =
            ManifestFiles.readDeleteManifest(manifest, io, specs)) {
          files.forEach(file -> visitor.accept(referenced(file, Kind.DELETES, specs)));
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read delete manifest " + manifest.path(), e);
        }
      }
      default -> throw new IllegalArgumentException("Cannot read manifest " + manifest.path()
          + ": unknown content " + manifest.content());
    }
  }

  private static Referenced referenced(ContentFile<?> file, Kind kind, Map<Integer, PartitionSpec> specs) {
    PartitionSpec spec = specs.get(file.specId());
    String partition = spec == null || spec.isUnpartitioned() ? "" : spec.partitionToPath(file.partition());
    Long added = file.fileSequenceNumber();
    return new Referenced(file.location(), file.fileSizeInBytes(), file.format(), kind, partition,
        added == null ? 0 : added);
  }
}
