package io.verglas.materializer.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.materializer.store.WalStore;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.materializer.write.TableDelta;
import io.verglas.table.VerglasTableProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the merged delta of one table for one checkpoint as one Iceberg {@code RowDelta}.
 *
 * <p>Design.
 * <ol>
 *   <li>Exactly once: the table's committed WAL marks are read from its snapshot lineage
 *       ({@link WalSummary}). A delta whose every segment range is already covered was committed
 *       before a restart and is skipped; one that is partly covered means the log order was
 *       broken and fails loudly. The new snapshot carries every stream's mark forward.
 *   <li>Deletes become deletion vectors, one per data file: the data file's spec and partition
 *       and its current DV come from the snapshot the commit starts from ({@link DataFileIndex});
 *       {@code BaseDVFileWriter} merges the old DV into the new one, and the old one is removed
 *       in the same commit (a reader refuses two DVs for one file). Deletes against files added
 *       in this same delta (an early flush) need neither lookup nor validation.
 *   <li>Validation from the starting snapshot: referenced files must still exist, and no
 *       conflicting deletes may have been added concurrently. A conflict (a compaction rewrote a
 *       file we delete from) fails the job for now: it restarts from its checkpoint and retries.
 *       Re-resolving the key positions against the new snapshot is a later step.
 *   <li>After the commit returns: a catalog event (id {@code tableUuid:snapshotId}), then the
 *       WAL segments the delta covers completely are deleted. Both are best effort: a lost event
 *       is found by the catalog poller, a leftover segment is deleted when it is next read.
 * </ol>
 * Safe to run twice with the same delta: the second run finds the range committed.
 */
public final class TableCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(TableCommitter.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  public static final String EVENT_SOURCE = "verglas://materializer";

  private final VerglasTables tables;
  private final WalStore store;
  private final EventPublisher events;
  private final String jobId;

  public TableCommitter(VerglasTables tables, WalStore store, EventPublisher events, String jobId) {
    this.tables = tables;
    this.store = store;
    this.events = events;
    this.jobId = jobId;
  }

  /** What {@link #commit} did. */
  public enum Outcome { COMMITTED, ALREADY_COMMITTED, NOTHING_TO_COMMIT, TABLE_UNAVAILABLE }

  /** The outcome and, for {@link Outcome#COMMITTED}, the new snapshot id. */
  public record Result(Outcome outcome, Long snapshotId) {}

  /** Commits {@code delta} (all of one table's changes in one checkpoint). */
  public Result commit(TableDelta delta) {
    Optional<Table> loaded = tables.load(delta.tableUuid(), delta.tableName());
    if (loaded.isEmpty()) {
      LOG.warn("Cannot commit checkpoint {} to table {} ({}): the table is not available;"
          + " its WAL segments stay", delta.checkpointId(), delta.tableName(), delta.tableUuid());
      return new Result(Outcome.TABLE_UNAVAILABLE, null);
    }
    Table table = loaded.get();
    Map<String, WalMark> committed = WalSummary.committed(table);
    if (isCommitted(delta, committed)) {
      LOG.info("Checkpoint {} of table {} was committed before; skipping", delta.checkpointId(),
          delta.tableName());
      deleteSegments(delta);
      return new Result(Outcome.ALREADY_COMMITTED, null);
    }
    if (!delta.hasChanges()) {
      // Every row lost to a newer version already materialized: nothing to commit, and the
      // rows are consumed, so their segments can go.
      deleteSegments(delta);
      return new Result(Outcome.NOTHING_TO_COMMIT, null);
    }
    Snapshot base = table.currentSnapshot();
    RowDelta rowDelta = table.newRowDelta();
    Map<String, DataFile> added = new HashMap<>();
    for (String json : delta.dataFiles()) {
      DataFile file = parseDataFile(table, json);
      added.put(file.location(), file);
      rowDelta.addRows(file);
    }
    if (!delta.deletes().isEmpty()) {
      addDeletionVectors(table, base, delta, added, rowDelta);
    }
    if (base != null) {
      rowDelta.validateFromSnapshot(base.snapshotId());
    }
    rowDelta.validateDeletedFiles();
    rowDelta.validateNoConflictingDeleteFiles();
    WalSummary.toSummary(advance(committed, delta)).forEach(rowDelta::set);
    rowDelta.set(VerglasTableProperties.SUMMARY_JOB_ID, jobId);
    rowDelta.set(VerglasTableProperties.SUMMARY_CHECKPOINT_ID, Long.toString(delta.checkpointId()));
    try {
      rowDelta.commit();
    } catch (ValidationException | CommitFailedException e) {
      throw new IllegalStateException("Cannot commit checkpoint " + delta.checkpointId()
          + " to table " + delta.tableName() + ": a concurrent change conflicts (" + e.getMessage()
          + "). Re-resolving key positions against the new snapshot is not implemented yet;"
          + " the job restarts from its last checkpoint and retries", e);
    }
    Snapshot snapshot = table.currentSnapshot();
    LOG.info("Committed checkpoint {} to table {}: snapshot {}, {} data files, DVs for {} files",
        delta.checkpointId(), delta.tableName(), snapshot.snapshotId(), delta.dataFiles().size(),
        delta.deletes().size());
    publish(table, delta, snapshot);
    deleteSegments(delta);
    return new Result(Outcome.COMMITTED, snapshot.snapshotId());
  }

  /** True when every segment range of the delta is covered; throws when only some are. */
  static boolean isCommitted(TableDelta delta, Map<String, WalMark> committed) {
    int covered = 0;
    for (SegmentProgress progress : delta.segments().values()) {
      if (committed.getOrDefault(progress.streamId(), WalMark.NONE).covers(progress)) {
        covered++;
      }
    }
    if (covered > 0 && covered < delta.segments().size()) {
      throw new IllegalStateException("Cannot commit checkpoint " + delta.checkpointId()
          + " to table " + delta.tableName() + ": only part of its WAL range " + delta.segments()
          + " is committed (" + committed + "); the log was not consumed in order");
    }
    return covered > 0;
  }

  static Map<String, WalMark> advance(Map<String, WalMark> committed, TableDelta delta) {
    Map<String, WalMark> marks = new TreeMap<>(committed);
    List<SegmentProgress> ordered = new ArrayList<>(delta.segments().values());
    ordered.sort(Comparator.comparing(SegmentProgress::streamId)
        .thenComparingLong(SegmentProgress::sequence));
    for (SegmentProgress progress : ordered) {
      marks.put(progress.streamId(),
          marks.getOrDefault(progress.streamId(), WalMark.NONE).advance(progress));
    }
    return marks;
  }

  private void addDeletionVectors(Table table, Snapshot base, TableDelta delta,
      Map<String, DataFile> added, RowDelta rowDelta) {
    if (TableUtil.formatVersion(table) < 3) {
      throw new IllegalStateException("Cannot commit deletes to table " + delta.tableName()
          + ": it has format version " + TableUtil.formatVersion(table)
          + "; primary-key tables need format version 3 (deletion vectors)");
    }
    Set<String> existing = new HashSet<>(delta.deletes().keySet());
    existing.removeAll(added.keySet());
    DataFileIndex index = DataFileIndex.load(table, base, existing);
    for (String path : existing) {
      if (index.dataFile(path).isEmpty()) {
        throw new IllegalStateException("Cannot commit checkpoint " + delta.checkpointId()
            + " to table " + delta.tableName() + ": data file " + path + " is not in snapshot "
            + (base == null ? "(none)" : base.snapshotId()) + " (rewritten by a compaction?)."
            + " Re-resolving key positions against the new snapshot is not implemented yet");
      }
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    OutputFileFactory dvFiles = OutputFileFactory.builderFor(table, 0, delta.checkpointId())
        .format(FileFormat.PUFFIN)
        .build();
    BaseDVFileWriter writer = new BaseDVFileWriter(dvFiles, path -> previousDeletes(index, loader, path));
    try (BaseDVFileWriter closing = writer) {
      for (Map.Entry<String, long[]> entry : delta.deletes().entrySet()) {
        String path = entry.getKey();
        DataFile target = added.containsKey(path) ? added.get(path) : index.dataFile(path).get();
        PartitionSpec spec = table.specs().get(target.specId());
        for (long position : entry.getValue()) {
          if (position < 0 || position >= target.recordCount()) {
            throw new IllegalStateException("Cannot delete row " + position + " of " + path
                + ": it has " + target.recordCount() + " rows");
          }
          closing.delete(path, position, spec, target.partition());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write deletion vectors for table "
          + delta.tableName(), e);
    }
    DeleteWriteResult result = writer.result();
    result.deleteFiles().forEach(rowDelta::addDeletes);
    result.rewrittenDeleteFiles().forEach(rowDelta::removeDeletes);
    if (!existing.isEmpty()) {
      rowDelta.validateDataFilesExist(existing);
    }
  }

  private static PositionDeleteIndex previousDeletes(DataFileIndex index, BaseDeleteLoader loader,
      String path) {
    return index.dv(path).map(dv -> loader.loadPositionDeletes(List.of(dv), path)).orElse(null);
  }

  private static DataFile parseDataFile(Table table, String json) {
    try {
      JsonNode node = MAPPER.readTree(json);
      ContentFile<?> file = ContentFileParser.fromJson(node, table.specs());
      if (!(file instanceof DataFile dataFile)) {
        throw new IllegalStateException("Cannot commit " + file.location() + ": not a data file");
      }
      return dataFile;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot parse data file JSON: " + json, e);
    }
  }

  private void publish(Table table, TableDelta delta, Snapshot snapshot) {
    try {
      TableIdentifier identifier = VerglasTables.identifier(delta.tableName());
      List<String> levels = new ArrayList<>(List.of(identifier.namespace().levels()));
      levels.add(identifier.name());
      String metadataLocation = table instanceof HasTableOperations
          ? TableUtil.metadataFileLocation(table) : null;
      events.publish(new CatalogEvent(
          CatalogEvent.eventId(delta.tableUuid(), snapshot.snapshotId()), EVENT_SOURCE,
          Instant.now(), levels, delta.tableUuid(), snapshot.snapshotId(), snapshot.parentId(),
          snapshot.operation(), snapshot.sequenceNumber(), snapshot.timestampMillis(),
          snapshot.summary(), metadataLocation, 0));
    } catch (RuntimeException e) {
      LOG.warn("Cannot publish the catalog event for snapshot {} of table {}: {}",
          snapshot.snapshotId(), delta.tableName(), e.toString());
    }
  }

  private void deleteSegments(TableDelta delta) {
    for (Map.Entry<String, SegmentProgress> entry : delta.segments().entrySet()) {
      if (!entry.getValue().complete()) {
        continue;
      }
      try {
        store.delete(entry.getKey());
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete committed WAL segment {}: {}", entry.getKey(), e.toString());
      }
    }
  }
}
