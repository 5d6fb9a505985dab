package io.verglas.materializer.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The live data files with given paths in one snapshot, and the deletion vector each has.
 *
 * <p>Deletes name a data file by path, but writing a DV needs the file's partition spec and
 * partition, and merging needs the file's current DV. This slice reads every manifest of the
 * snapshot, which costs O(table) per commit that deletes; a later version can prune manifests
 * by partition or keep an index across commits.
 */
final class DataFileIndex {
  private final Map<String, DataFile> dataFiles;
  private final Map<String, DeleteFile> dvs;

  private DataFileIndex(Map<String, DataFile> dataFiles, Map<String, DeleteFile> dvs) {
    this.dataFiles = dataFiles;
    this.dvs = dvs;
  }

  static DataFileIndex load(Table table, Snapshot snapshot, Set<String> paths) {
    Map<String, DataFile> dataFiles = new HashMap<>();
    Map<String, DeleteFile> dvs = new HashMap<>();
    if (snapshot == null || paths.isEmpty()) {
      return new DataFileIndex(dataFiles, dvs);
    }
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : reader) {
          if (paths.contains(file.location())) {
            dataFiles.put(file.location(), file.copyWithoutStats());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) {
          String target = file.referencedDataFile();
          if (target != null && file.format() == FileFormat.PUFFIN && paths.contains(target)) {
            DeleteFile previous = dvs.put(target, file.copy());
            if (previous != null) {
              throw new IllegalStateException("Cannot index deletion vectors of " + target
                  + ": snapshot " + snapshot.snapshotId() + " has two (" + previous.location()
                  + ", " + file.location() + ")");
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read delete manifest " + manifest.path(), e);
      }
    }
    return new DataFileIndex(dataFiles, dvs);
  }

  Optional<DataFile> dataFile(String path) {
    return Optional.ofNullable(dataFiles.get(path));
  }

  Optional<DeleteFile> dv(String path) {
    return Optional.ofNullable(dvs.get(path));
  }
}
