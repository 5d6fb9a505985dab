package io.verglas.maintenance.compact;

import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.plan.CompactionPlan;
import io.verglas.maintenance.plan.CompactionPlanner;
import io.verglas.maintenance.plan.RewriteGroup;
import io.verglas.maintenance.plan.SnapshotFiles;
import io.verglas.maintenance.policy.MaintenancePolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes compaction plans with Iceberg's core API: reads each group's rows with their deletes
 * applied, writes them into new Parquet files, and commits one {@code replace} per group.
 *
 * <p>Design: each commit is a {@link RewriteFiles} validated from the snapshot the group was
 * read from, so a writer that added deletes to one of its files meanwhile (the materializer
 * replacing a row) makes the whole group fail validation; the group is then abandoned whole
 * (its new files deleted) and the next pass plans again from a fresh snapshot. Iceberg retries
 * plain metadata races ({@link CommitFailedException}) itself, re-validating each time. The
 * delete files scoped to a rewritten file (DVs, file-scoped position deletes) are removed in the
 * same commit, so none dangles; deletes that may apply to other files stay. New files keep the
 * read snapshot's data sequence number, so equality deletes committed meanwhile still apply.
 *
 * <p>Row lineage (format version 3): a rewrite changes no row, so every row keeps its
 * {@code _row_id} and {@code _last_updated_sequence_number}. Both are read as Iceberg's reader
 * materializes them (a file's nulls inherit its {@code first_row_id} plus position and its
 * sequence number) and written explicitly into the new files: left null there, they would
 * inherit the new files' first row id (fresh ids) and this commit's sequence number (a change
 * that did not happen).
 */
public final class Compactor {
  public static final String SUMMARY_KIND = "verglas.maintenance";
  public static final String KIND_COMPACTION = "compaction";
  public static final String SUMMARY_REASONS = "verglas.maintenance.reasons";
  public static final String SUMMARY_COMMIT_ID = "verglas.maintenance.commit-id";
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  private final MaintenanceEvents events;
  private int taskIds;

  public Compactor(MaintenanceEvents events) {
    this.events = events;
  }

  /** Plans the current snapshot of {@code table} under {@code policy}. */
  public static CompactionPlan plan(SnapshotFiles files, MaintenancePolicy policy) {
    if (files.snapshot() == null) {
      return new CompactionPlan(-1, List.of());
    }
    return new CompactionPlanner(policy).plan(files.snapshot().snapshotId(), files.states());
  }

  /** One pass: plans the current snapshot and rewrites every group of the plan. */
  public CompactionResult compact(TableIdentifier name, Table table, MaintenancePolicy policy) {
    table.refresh();
    SnapshotFiles files = SnapshotFiles.current(table);
    CompactionPlan plan = plan(files, policy);
    List<GroupOutcome> outcomes = new ArrayList<>();
    for (RewriteGroup group : plan.groups()) {
      outcomes.add(rewrite(name, table, files, group));
    }
    return new CompactionResult(outcomes);
  }

  /** Rewrites one group read from {@code files}' snapshot; commits it or abandons it whole. */
  public GroupOutcome rewrite(TableIdentifier name, Table table, SnapshotFiles files,
      RewriteGroup group) {
    Snapshot base = files.snapshot();
    List<FileScanTask> tasks = group.files().stream().map(f -> files.task(f.path())).toList();
    List<DataFile> written = write(table, tasks, group);
    String commitId = UUID.randomUUID().toString();
    RewriteFiles rewrite = table.newRewrite()
        .validateFromSnapshot(base.snapshotId())
        .dataSequenceNumber(base.sequenceNumber())
        .set(SUMMARY_KIND, KIND_COMPACTION)
        .set(SUMMARY_REASONS, group.reasons().stream().map(Enum::name).sorted()
            .collect(Collectors.joining(",")))
        .set(SUMMARY_COMMIT_ID, commitId);
    int removedDeletes = 0;
    for (FileScanTask task : tasks) {
      rewrite.deleteFile(task.file());
      for (DeleteFile delete : task.deletes()) {
        if (scopedTo(delete, task.file())) {
          rewrite.deleteFile(delete);
          removedDeletes++;
        }
      }
    }
    written.forEach(rewrite::addFile);
    try {
      rewrite.commit();
    } catch (ValidationException | CommitFailedException e) {
      written.forEach(file -> table.io().deleteFile(file.location()));
      LOG.info("Abandoned a compaction of {} ({} files): {}", name, tasks.size(), e.getMessage());
      return GroupOutcome.abandoned(tasks.size(), group.inputBytes(), e.getMessage());
    }
    Snapshot committed = committedSnapshot(table, commitId);
    events.committed(name, table, committed);
    long bytesWritten = written.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    return GroupOutcome.committed(committed.snapshotId(), tasks.size(), written.size(),
        removedDeletes, group.inputBytes(), bytesWritten);
  }

  private List<DataFile> write(Table table, List<FileScanTask> tasks, RewriteGroup group) {
    Schema schema = rewriteSchema(table);
    FileScanTask first = tasks.get(0);
    long rowsPerFile = Math.max(1, (group.liveRecords() + group.outputFiles() - 1)
        / group.outputFiles());
    GroupWriter writer = new GroupWriter(table, schema, first.spec(), first.file().partition(),
        rowsPerFile, nextTaskId());
    try (GroupWriter closing = writer) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<Record> rows = LiveRows.open(table, schema, task)) {
          rows.forEach(closing::write);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rewrite files of " + table.name(), e);
    }
    return writer.result();
  }

  /** The table's columns, and on format version 3 and later its row-lineage columns. */
  static Schema rewriteSchema(Table table) {
    return TableUtil.formatVersion(table) >= 3
        ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema();
  }

  private synchronized int nextTaskId() {
    return taskIds++;
  }

  /** True when {@code delete} can only apply to {@code file}: a DV or file-scoped position delete. */
  private static boolean scopedTo(DeleteFile delete, DataFile file) {
    return delete.content() == FileContent.POSITION_DELETES
        && file.location().equals(delete.referencedDataFile());
  }

  /** The snapshot of the lineage whose summary carries {@code commitId}; after our commit. */
  public static Snapshot committedSnapshot(Table table, String commitId) {
    Snapshot snapshot = table.currentSnapshot();
    while (snapshot != null && !commitId.equals(snapshot.summary().get(SUMMARY_COMMIT_ID))) {
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    if (snapshot == null) {
      throw new IllegalStateException("Cannot find the maintenance commit " + commitId
          + " in the lineage of " + table.name());
    }
    return snapshot;
  }
}
