package io.verglas.materializer.lineage;

import io.verglas.materializer.data.RowIdParquetWriter;
import io.verglas.materializer.delta.TableInterval;
import io.verglas.materializer.keyindex.KeyEntry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.data.Record;

/**
 * Gives the new version of an existing key its previous version's {@code _row_id} (Iceberg V3
 * row lineage), so that a key's row id is stable across updates. Rows of new keys (and keys
 * written again after a delete) get none: they inherit one from their file's
 * {@code first_row_id}, as the spec assigns ids to new rows.
 *
 * <p>Design. The previous version is where the key index entry points (data file, position):
 * <ol>
 *   <li>a file of the table's open interval: the id staged with that row (null for a key new in
 *       this interval, which then stays new: nothing was committed with an id for it);
 *   <li>a file of an interval that ended recently (this checkpoint, or one of the last
 *       {@value #CHECKPOINTS_KEPT} checkpoints, possibly not committed yet): the id written,
 *       when explicit; a null there is the id the file's {@code first_row_id} gives, known only
 *       once that file is committed, so it is looked up like
 *   <li>any other file: the id Iceberg's reader gives the row of the committed file
 *       ({@link CommittedRowIds}). Compactions carry the ids over unchanged, so the file the
 *       entry names still gives the right id after its rows moved elsewhere.
 * </ol>
 * Only the flush thread uses it (the task thread at the barrier, after the flush thread
 * stopped). Nothing of it is checkpointed (the key index format is unchanged): after a restore
 * every file is looked up in the table, or, not committed yet, read as it is.
 *
 * <p>Memory: 8 bytes per row the writer wrote in the current and the last
 * {@value #CHECKPOINTS_KEPT} checkpoints (a row's payload takes far more while it is staged),
 * plus the bounded caches of {@link CommittedRowIds}.
 */
public final class RowLineage {
  /** No id is known here for that file and position. */
  static final long UNKNOWN = RowIdParquetWriter.UNKNOWN;
  /** Checkpoints whose files' ids are kept after their barrier. */
  static final int CHECKPOINTS_KEPT = 2;

  private final CommittedRowIds committed;
  /** By table, then by file (as the key index stores it): the ids of files ended since the barrier. */
  private Map<String, Map<String, long[]>> current = new HashMap<>();
  private final Deque<Map<String, Map<String, long[]>>> previous = new ArrayDeque<>();

  public RowLineage(CommittedRowIds committed) {
    this.committed = committed;
  }

  /**
   * The row id for the new version of a key whose previous, live version {@code entry} points
   * at ({@code key}: the key's primary-key columns, for a look-up by key); {@link
   * RowIdParquetWriter#INHERITED} for none (the row then inherits a fresh one).
   */
  public long rowIdOf(TableInterval interval, KeyEntry entry, Supplier<Record> key)
      throws InterruptedException {
    long id = interval.rowIdAt(entry.dataFile, entry.filePosition);
    if (id != UNKNOWN) {
      return id;
    }
    long[] ended = ended(current, interval.tableUuid, entry.dataFile);
    if (ended != null) {
      return at(ended, entry.filePosition);
    }
    for (Map<String, Map<String, long[]>> checkpoint : previous) {
      long[] ids = ended(checkpoint, interval.tableUuid, entry.dataFile);
      if (ids != null && at(ids, entry.filePosition) >= 0) {
        return at(ids, entry.filePosition);
      }
    }
    return committed.rowId(interval.table(), interval.resolve(entry.dataFile),
        entry.filePosition, entry, key);
  }

  /** Records the ids of an interval's files once it has ended. */
  public void ended(TableInterval interval) {
    if (interval.writesRowIds()) {
      current.computeIfAbsent(interval.tableUuid, uuid -> new HashMap<>())
          .putAll(interval.writtenRowIds());
    }
  }

  /** The barrier: the files ended so far go to the checkpoint's commit. */
  public void checkpointed() {
    previous.addFirst(current);
    while (previous.size() > CHECKPOINTS_KEPT) {
      previous.removeLast();
    }
    current = new HashMap<>();
  }

  /** Rows whose new version got a fresh id because their file was not found in time. */
  public long lostRows() {
    return committed.lostRows();
  }

  private static long[] ended(Map<String, Map<String, long[]>> files, String tableUuid,
      String dataFile) {
    Map<String, long[]> table = files.get(tableUuid);
    return table == null ? null : table.get(dataFile);
  }

  private static long at(long[] ids, long position) {
    return position < ids.length ? ids[Math.toIntExact(position)] : RowIdParquetWriter.INHERITED;
  }
}
