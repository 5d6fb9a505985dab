package io.verglas.materializer.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * The live data files with given paths in one snapshot, and (on request) the position deletes
 * scoped to each: its deletion vector, and file-scoped position-delete files (a version 2 table
 * has those, and a table upgraded from it; a DV must absorb them, and a data file removed
 * because every row is deleted takes them along).
 *
 * <p>Deletes name a data file by path, but writing a delete file needs the data file's partition
 * spec and partition, and a DV needs the file's previous deletes. This reads every data manifest
 * of the snapshot, which costs O(table) per commit that deletes; a later version can prune
 * manifests by partition or keep an index across commits.
 */
final class DataFileIndex {
  /**
   * The manifest columns a delete needs (what a scan plans with, plus the delete-file fields):
   * decoding the per-column statistics of every entry was most of the cost of a load.
   */
  private static final List<String> WITHOUT_STATS = List.of("file_path", "file_format",
      "partition", "record_count", "file_size_in_bytes", "key_metadata", "split_offsets",
      "sort_order_id", "content", "equality_ids", "referenced_data_file", "content_offset",
      "content_size_in_bytes", "first_row_id");
  private final Map<String, DataFile> dataFiles;
  private final Map<String, List<DeleteFile>> deletes;

  private DataFileIndex(Map<String, DataFile> dataFiles, Map<String, List<DeleteFile>> deletes) {
    this.dataFiles = dataFiles;
    this.deletes = deletes;
  }

  static DataFileIndex load(Table table, Snapshot snapshot, Set<String> paths,
      boolean withDeletes) {
    Map<String, DataFile> dataFiles = new HashMap<>();
    Map<String, List<DeleteFile>> deletes = new HashMap<>();
    if (snapshot == null || paths.isEmpty()) {
      return new DataFileIndex(dataFiles, deletes);
    }
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, table.io(), table.specs()).select(WITHOUT_STATS)) {
        for (DataFile file : reader) {
          if (paths.contains(file.location())) {
            dataFiles.put(file.location(), file.copyWithoutStats());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    if (withDeletes) {
      loadDeletes(table, snapshot, paths, deletes);
    }
    return new DataFileIndex(dataFiles, deletes);
  }

  private static void loadDeletes(Table table, Snapshot snapshot, Set<String> paths,
      Map<String, List<DeleteFile>> deletes) {
    Map<String, DeleteFile> dvs = new HashMap<>();
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader = ManifestFiles
          .readDeleteManifest(manifest, table.io(), table.specs()).select(WITHOUT_STATS)) {
        for (DeleteFile file : reader) {
          if (file.content() != FileContent.POSITION_DELETES) {
            continue;
          }
          String target = ContentFileUtil.referencedDataFileLocation(file);
          if (target == null || !paths.contains(target)) {
            continue;
          }
          if (ContentFileUtil.isDV(file)) {
            DeleteFile previous = dvs.put(target, file);
            if (previous != null) {
              throw new IllegalStateException("Cannot index deletion vectors of " + target
                  + ": snapshot " + snapshot.snapshotId() + " has two (" + previous.location()
                  + ", " + file.location() + ")");
            }
          }
          deletes.computeIfAbsent(target, path -> new ArrayList<>()).add(file.copy());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read delete manifest " + manifest.path(), e);
      }
    }
  }

  Optional<DataFile> dataFile(String path) {
    return Optional.ofNullable(dataFiles.get(path));
  }

  /** The position deletes scoped to the data file (its DV, file-scoped delete files). */
  List<DeleteFile> deletes(String path) {
    return deletes.getOrDefault(path, List.of());
  }
}
