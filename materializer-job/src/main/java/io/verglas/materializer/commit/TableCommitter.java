package io.verglas.materializer.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.materializer.store.WalStore;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.table.VerglasTableProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
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
 *   <li>Deletes are resolved against the snapshot the commit starts from
 *       ({@link ResolvedDeletes}). A delete names (data file, position, primary key); when the
 *       file is live there, the position is exact (files are immutable). When it is not, another
 *       writer rewrote the file after our writer's key index pointed at it (a compaction, which
 *       preserves rows): {@link KeyRelocator} finds the live row with that key in the files that
 *       replaced it and deletes it there. Deletes against files added in this same delta (an
 *       early flush) need neither look-up nor validation.
 *   <li>Deletes are written in the table's format ({@link DeleteFileWriter}): deletion vectors
 *       on format version 3, one per data file, merged with that file's previous deletes, which
 *       the commit removes (a reader refuses two DVs for one file); on format version 2 one
 *       file-scoped Parquet position-delete file per data file and commit, earlier ones stay.
 *       A data file whose deletes would then cover every row is removed instead
 *       ({@code removeRows}, with its previous DV or file-scoped delete files; one of this
 *       delta's own files is simply not added): its rows are all superseded, and a reader should
 *       not open it to find that out. In an upsert stream that rewrites every key, this keeps
 *       the table's files near its live rows.
 *   <li>Validation from the starting snapshot: referenced files must still exist, and no
 *       conflicting deletes may have been added concurrently. A conflict (a compaction committed
 *       a {@code replace} of a file we delete from after we read the snapshot) discards this
 *       attempt's delete files, and the next attempt starts over from the new snapshot: the rows
 *       of the replaced files are re-resolved by key. After {@link #MAX_ATTEMPTS_DEFAULT}
 *       attempts the job fails and restarts from its checkpoint. The other side is safe too:
 *       a compaction that read a file before we added deletes to it fails its own validation
 *       ({@code validateNoNewDeletesForDataFiles}), so no deleted row comes back and none is
 *       lost. A commit whose outcome is unknown is not retried here: the restart decides from
 *       the WAL marks. Optimistic concurrency has no fairness: a compactor that rewrites the
 *       files we delete from more often than one attempt takes (a few hundred ms) starves this
 *       committer; compactions must pause between rewrites of one table. Re-resolved rows are
 *       counted in the snapshot summary ({@value #SUMMARY_RELOCATED_ROWS}).
 *   <li>The summary also names the idempotency keys of the client batches the commit makes
 *       durable ({@link CommittedKeys}), read from the segments before they are deleted.
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
  /** Snapshot summary key: how many deleted rows were found again by key (files rewritten). */
  public static final String SUMMARY_RELOCATED_ROWS = "verglas.relocated-rows";
  /** Commit attempts per delta before the job fails (and restarts from its checkpoint). */
  public static final int MAX_ATTEMPTS_DEFAULT = 10;
  /** Tables whose consumed-but-uncommitted marks are remembered at most. */
  public static final int MAX_CONSUMED_TABLES_DEFAULT = 10_000;

  private final VerglasTables tables;
  private final WalStore store;
  private final EventPublisher events;
  private final String jobId;
  private final int maxAttempts;
  /**
   * By table: the marks after deltas that changed nothing (every row lost to a newer version).
   * They get no snapshot of their own; the table's next commit records them, so its summary
   * covers every stream whose rows were consumed. Lost on a restart, which is harmless: those
   * segments are deleted, and a reader skips a segment that no longer exists. Bounded: beyond
   * {@code maxConsumedTables} tables the one whose marks changed longest ago is forgotten, with
   * the same (harmless) effect as a restart on that one table: its next commit records only
   * its own ranges, which the marks' advance accepts across the gap. Commits of different
   * tables run concurrently ({@link TableCommits}), hence the lock.
   */
  private final Map<String, Map<String, WalMark>> consumedUncommitted;
  private final int maxConsumedTables;
  /** Runs between preparing and committing an attempt: a seam for tests to race a commit. */
  private Consumer<Table> beforeCommit = table -> {};

  public TableCommitter(VerglasTables tables, WalStore store, EventPublisher events, String jobId) {
    this(tables, store, events, jobId, MAX_ATTEMPTS_DEFAULT);
  }

  public TableCommitter(VerglasTables tables, WalStore store, EventPublisher events, String jobId,
      int maxAttempts) {
    this(tables, store, events, jobId, maxAttempts, MAX_CONSUMED_TABLES_DEFAULT);
  }

  TableCommitter(VerglasTables tables, WalStore store, EventPublisher events, String jobId,
      int maxAttempts, int maxConsumedTables) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Invalid commit attempts: " + maxAttempts
          + " (need >= 1)");
    }
    if (maxConsumedTables < 1) {
      throw new IllegalArgumentException("Invalid consumed-marks tables: " + maxConsumedTables
          + " (need >= 1)");
    }
    this.tables = tables;
    this.store = store;
    this.events = events;
    this.jobId = jobId;
    this.maxAttempts = maxAttempts;
    this.maxConsumedTables = maxConsumedTables;
    this.consumedUncommitted = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Map<String, WalMark>> eldest) {
        if (size() <= TableCommitter.this.maxConsumedTables) {
          return false;
        }
        LOG.info("Forgetting the consumed WAL marks of table {}: more than {} tables have"
            + " consumed rows without a commit (as after a restart: harmless)", eldest.getKey(),
            TableCommitter.this.maxConsumedTables);
        return true;
      }
    };
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
    for (int attempt = 1; ; attempt++) {
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
        Map<String, WalMark> consumed = advance(withConsumed(delta, committed), delta);
        synchronized (consumedUncommitted) {
          consumedUncommitted.put(delta.tableUuid(), consumed);
        }
        deleteSegments(delta);
        return new Result(Outcome.NOTHING_TO_COMMIT, null);
      }
      Prepared prepared = prepare(table, delta, committed);
      try {
        beforeCommit.accept(table);
        prepared.rowDelta().commit();
      } catch (ValidationException | CommitFailedException e) {
        // Not committed (a failed validation or a lost race never changes the table): the
        // delete files of this attempt are garbage, and the next attempt starts from the new
        // snapshot, re-resolving the rows whose files were rewritten meanwhile.
        prepared.deletes().discard(table.io());
        if (attempt >= maxAttempts) {
          throw new IllegalStateException("Cannot commit checkpoint " + delta.checkpointId()
              + " to table " + delta.tableName() + ": concurrent commits conflicted " + attempt
              + " times (last: " + e.getMessage() + "); the job restarts from its last"
              + " checkpoint and retries", e);
        }
        LOG.info("Checkpoint {} of table {} conflicts with a concurrent commit ({});"
            + " re-resolving against the new snapshot (attempt {})", delta.checkpointId(),
            delta.tableName(), e.getMessage(), attempt + 1);
        pause(attempt);
        table.refresh();
        continue;
      }
      Snapshot snapshot = table.currentSnapshot();
      LOG.info("Committed checkpoint {} to table {}: snapshot {}, {} data files, deletes in {}"
          + " files of which {} emptied and removed ({} rows re-resolved)", delta.checkpointId(),
          delta.tableName(), snapshot.snapshotId(), delta.dataFiles().size(),
          prepared.deleteTargets(), prepared.deletes().emptied().size(), prepared.relocated());
      DeleteFileWriter.Written.discard(table.io(), prepared.unborn());
      publish(table, delta, snapshot);
      synchronized (consumedUncommitted) {
        consumedUncommitted.remove(delta.tableUuid());
      }
      deleteSegments(delta);
      return new Result(Outcome.COMMITTED, snapshot.snapshotId());
    }
  }

  /**
   * One attempt's row delta, the delete files written for it, the data files of the delta that
   * it does not add (every row deleted in the same checkpoint), and what it resolved.
   */
  private record Prepared(RowDelta rowDelta, DeleteFileWriter.Written deletes,
      List<DataFile> unborn, int deleteTargets, int relocated) {}

  private Prepared prepare(Table table, TableDelta delta, Map<String, WalMark> committed) {
    Snapshot base = table.currentSnapshot();
    RowDelta rowDelta = table.newRowDelta();
    Map<String, DataFile> added = new LinkedHashMap<>();
    for (String json : delta.dataFiles()) {
      DataFile file = parseDataFile(table, json);
      added.put(file.location(), file);
    }
    DeleteFileWriter.Written written = DeleteFileWriter.Written.NONE;
    int targets = 0;
    int relocated = 0;
    if (!delta.deletedRows().isEmpty()) {
      ResolvedDeletes resolved = ResolvedDeletes.resolve(table, delta, base, added);
      written = resolved.write();
      written.added().forEach(rowDelta::addDeletes);
      written.replaced().forEach(rowDelta::removeDeletes);
      // Files removed here are validated by the removal itself (validateDeletedFiles: still
      // there, no deletes added since the base); the builder refuses them as references.
      Set<String> referenced = new TreeSet<>(resolved.existing());
      written.emptied().forEach(file -> referenced.remove(file.location()));
      if (!referenced.isEmpty()) {
        rowDelta.validateDataFilesExist(referenced);
      }
      targets = resolved.positions().size();
      relocated = resolved.relocated();
      if (relocated > 0) {
        rowDelta.set(SUMMARY_RELOCATED_ROWS, Integer.toString(relocated));
      }
    }
    List<DataFile> unborn = new ArrayList<>();
    for (DataFile emptied : written.emptied()) {
      if (added.remove(emptied.location()) != null) {
        unborn.add(emptied);
      } else {
        rowDelta.removeRows(emptied);
      }
    }
    added.values().forEach(rowDelta::addRows);
    if (base != null) {
      rowDelta.validateFromSnapshot(base.snapshotId());
    }
    rowDelta.validateDeletedFiles();
    rowDelta.validateNoConflictingDeleteFiles();
    Map<String, WalMark> before = withConsumed(delta, committed);
    WalSummary.toSummary(advance(before, delta)).forEach(rowDelta::set);
    CommittedKeys.summary(store, delta, before).forEach(rowDelta::set);
    rowDelta.set(VerglasTableProperties.SUMMARY_JOB_ID, jobId);
    rowDelta.set(VerglasTableProperties.SUMMARY_CHECKPOINT_ID, Long.toString(delta.checkpointId()));
    return new Prepared(rowDelta, written, unborn, targets, relocated);
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(Math.min(1000L, 20L * attempt * attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot commit: interrupted while retrying", e);
    }
  }

  /** How many tables have consumed marks waiting for their next commit. */
  int consumedTables() {
    synchronized (consumedUncommitted) {
      return consumedUncommitted.size();
    }
  }

  /** Test seam: {@code hook} runs after each attempt is prepared, before it commits. */
  void beforeCommit(Consumer<Table> hook) {
    this.beforeCommit = hook;
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

  /** The committed marks, moved forward by what earlier change-less deltas consumed. */
  private Map<String, WalMark> withConsumed(TableDelta delta, Map<String, WalMark> committed) {
    Map<String, WalMark> marks = new TreeMap<>(committed);
    Map<String, WalMark> consumed;
    synchronized (consumedUncommitted) {
      consumed = consumedUncommitted.getOrDefault(delta.tableUuid(), Map.of());
    }
    consumed.forEach((stream, mark) -> marks.merge(stream, mark, WalMark::later));
    return marks;
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
    List<String> complete = new ArrayList<>();
    delta.segments().forEach((key, progress) -> {
      if (progress.complete()) {
        complete.add(key);
      }
    });
    if (complete.isEmpty()) {
      return;
    }
    try {
      store.delete(complete);
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete all {} committed WAL segments of table {}: {}", complete.size(),
          delta.tableName(), e.toString());
    }
  }
}
