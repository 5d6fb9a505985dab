package io.verglas.materializer.lineage;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.materializer.data.RowIdParquetWriter;
import io.verglas.materializer.keyindex.KeyEntry;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.table.PrimaryKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code _row_id} of a row of a committed data file, as Iceberg's reader materializes it:
 * the value the file holds, or, for a null, the file's {@code first_row_id} plus the row's
 * position. The writer asks for the row a key's previous version is, to give the new version
 * the same id.
 *
 * <p>Design. A data file gets its {@code first_row_id} when it is committed, so the file of a
 * previous checkpoint may not have one yet: the committer commits a checkpoint's deltas once the
 * checkpoint is complete, while the writer is already on the next interval. A row whose id the
 * file holds explicitly (an earlier update of its key) needs no commit: the file is read as it
 * is. Otherwise the id is waited for: the table is refreshed until a snapshot added the file, at
 * most {@code wait} (normally one commit). The file is found by walking the table's snapshots
 * back from the current one, each snapshot's added files read once (remembered, at most
 * {@value #MAX_REMEMBERED_FILES} files, then forgotten together), and only as far back as the
 * row was written (its hybrid clock time, less {@value #CLOCK_SKEW_MILLIS} ms for clock skew):
 * no older snapshot can have added the file. A file's ids are read once, with one column
 * projected, and kept while they fit in {@code maxCachedIds} (least recently used first out).
 *
 * <p>A file that is not found although the table's WAL marks say the row's segment is committed
 * was replaced by a compaction whose snapshot expiry then dropped the file's own snapshot:
 * compactions carry row ids over, so the key's live row is looked up in the current snapshot
 * (by its primary key, as a reader would) and its id taken.
 *
 * <p>Failures. A file never found within the wait (a notification of a completed checkpoint
 * was lost, so its commit waits for the next checkpoint, which waits for this flush) is given
 * up: the new version gets no explicit id, so it inherits a fresh one. That is counted
 * ({@link #lostRows}) and logged, and the file is not waited for again; it is looked for again
 * (without waiting) once the table has another snapshot.
 */
public final class CommittedRowIds {
  private static final Logger LOG = LoggerFactory.getLogger(CommittedRowIds.class);
  /** Row ids kept in memory by default (8 bytes each). */
  public static final long MAX_CACHED_IDS_DEFAULT = 1L << 22;
  static final long CLOCK_SKEW_MILLIS = 10 * 60 * 1000;
  static final int MAX_REMEMBERED_FILES = 1 << 16;
  private static final long POLL_MILLIS_MAX = 500;
  private static final int HELD_FILES = 16;
  /** What a look-up needs of a manifest entry (no column statistics). */
  private static final List<String> MANIFEST_COLUMNS = List.of("file_path", "file_format",
      "partition", "record_count", "file_size_in_bytes", "first_row_id");
  /** Read as the first row id of a file that has none (see {@link #read}). */
  private static final long NO_FIRST_ROW_ID = Long.MIN_VALUE / 2;

  private final long waitNanos;
  private final long maxCachedIds;
  /** Files added by the snapshots walked so far, by path. */
  private final Map<String, AddedFile> added = new HashMap<>();
  private final Set<Long> walked = new HashSet<>();
  /** Each file's ids by position, least recently used first. */
  private final LinkedHashMap<String, long[]> ids = new LinkedHashMap<>(16, 0.75f, true);
  /** The ids held by files not found committed (a null as INHERITED), the last few read. */
  private final LinkedHashMap<String, long[]> held = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
      return size() > HELD_FILES;
    }
  };
  /** Files given up on, with the table's snapshot id then (-1 for none). */
  private final Map<String, Long> lost = new HashMap<>();
  private long cachedIds;
  private long lostRows;

  public CommittedRowIds(Duration wait, long maxCachedIds) {
    if (wait.isNegative()) {
      throw new IllegalArgumentException("Invalid row id wait: " + wait + " (need >= 0)");
    }
    if (maxCachedIds < 0) {
      throw new IllegalArgumentException("Invalid cached row ids: " + maxCachedIds
          + " (need >= 0)");
    }
    this.waitNanos = wait.toNanos();
    this.maxCachedIds = maxCachedIds;
  }

  /**
   * The id of the row at {@code position} of data file {@code path} of {@code table}, the
   * version {@code previous} of the key {@code key} gives (its primary-key columns);
   * {@link RowIdParquetWriter#INHERITED} when the file is not found within the wait.
   */
  long rowId(Table table, String path, long position, KeyEntry previous,
      Supplier<Record> key) throws InterruptedException {
    long[] fileIds = ids.get(path);
    if (fileIds == null) {
      long since = HybridLogicalClock.physicalMillis(previous.hlc) - CLOCK_SKEW_MILLIS;
      AddedFile file = find(table, path, since);
      if (file == null && committed(table, previous)) {
        return liveRowId(table, key.get());
      }
      if (file == null) {
        long explicit = explicitId(table, path, position);
        if (explicit >= 0) {
          return explicit;
        }
        file = await(table, path, since);
      }
      if (file != null) {
        lost.remove(path);
        fileIds = read(table, file.location(), file.format(), file.records(), file.firstRowId());
        cache(path, fileIds);
      }
    }
    if (fileIds == null || position >= fileIds.length) {
      lostRows++;
      return RowIdParquetWriter.INHERITED;
    }
    return fileIds[Math.toIntExact(position)];
  }

  /** Rows whose new version got a fresh id because their file was not found. */
  long lostRows() {
    return lostRows;
  }

  /**
   * The file once a snapshot added it, waiting at most the wait; null when given up (at once
   * for a file given up on before, while the table has no new snapshot).
   */
  private AddedFile await(Table table, String path, long since) throws InterruptedException {
    if (lost.containsKey(path)) {
      lost.put(path, snapshotId(table));
      return null;
    }
    long deadline = System.nanoTime() + waitNanos;
    long poll = 10;
    while (System.nanoTime() - deadline < 0) {
      Thread.sleep(poll);
      poll = Math.min(POLL_MILLIS_MAX, poll * 2);
      table.refresh();
      AddedFile file = find(table, path, since);
      if (file != null) {
        return file;
      }
    }
    LOG.warn("Cannot find data file {} of table {} within {} ms: the new versions of its rows"
        + " get fresh row ids", path, table.name(), waitNanos / 1_000_000);
    if (lost.size() >= MAX_REMEMBERED_FILES) {
      lost.clear();
    }
    lost.put(path, snapshotId(table));
    return null;
  }

  /** Whether the table's WAL marks cover the whole segment {@code entry}'s row came from. */
  private static boolean committed(Table table, KeyEntry entry) {
    WalMark mark = entry.streamId == null ? null
        : WalSummary.committed(table).get(entry.streamId);
    return mark != null && mark.fullThrough() >= entry.sequence;
  }

  /**
   * The id of the live row with {@code key}'s primary key in the current snapshot, or
   * {@link RowIdParquetWriter#INHERITED} when there is none.
   */
  private long liveRowId(Table table, Record key) {
    Schema schema = table.schema();
    List<Integer> keyFieldIds = PrimaryKeys.fieldIds(schema);
    Expression filter = Expressions.alwaysTrue();
    for (int fieldId : keyFieldIds) {
      Types.NestedField field = schema.findField(fieldId);
      Object value = key.getField(field.name());
      if (value instanceof Integer || value instanceof Long || value instanceof CharSequence) {
        filter = Expressions.and(filter, Expressions.equal(field.name(),
            value instanceof CharSequence text ? text.toString() : value));
      }
    }
    Schema projection = TypeUtil.join(TypeUtil.select(schema, new HashSet<>(keyFieldIds)),
        new Schema(MetadataColumns.ROW_ID));
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).where(filter)
        .project(projection).build()) {
      for (Record row : rows) {
        if (sameKey(row, key, schema, keyFieldIds)) {
          Long id = (Long) row.getField(MetadataColumns.ROW_ID.name());
          return id == null ? RowIdParquetWriter.INHERITED : id;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot look up a row of " + table.name() + " by key", e);
    }
    lostRows++;
    return RowIdParquetWriter.INHERITED;
  }

  private static boolean sameKey(Record row, Record key, Schema schema, List<Integer> fieldIds) {
    for (int fieldId : fieldIds) {
      String name = schema.findField(fieldId).name();
      Object a = row.getField(name);
      Object b = key.getField(name);
      if (!String.valueOf(a).equals(String.valueOf(b))) {
        return false;
      }
    }
    return true;
  }

  private static long snapshotId(Table table) {
    return table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
  }

  /**
   * The id the file at {@code path}, committed or not, holds for the row at {@code position};
   * {@link RowIdParquetWriter#INHERITED} for a null, or when the file cannot be read.
   */
  private long explicitId(Table table, String path, long position) {
    long[] fileIds = held.get(path);
    if (fileIds == null) {
      try {
        fileIds = read(table, path, FileFormat.PARQUET, Integer.MAX_VALUE - 8, null);
      } catch (RuntimeException e) {
        return RowIdParquetWriter.INHERITED; // not written (an abandoned attempt's) or deleted
      }
      held.put(path, fileIds);
    }
    return position < fileIds.length ? fileIds[Math.toIntExact(position)]
        : RowIdParquetWriter.INHERITED;
  }

  /** The file among those added by snapshots from {@code sinceMillis} on, or null. */
  private AddedFile find(Table table, String path, long sinceMillis) {
    AddedFile known = added.get(path);
    if (known != null) {
      return known;
    }
    Long givenUpAt = lost.get(path);
    if (givenUpAt != null && givenUpAt == snapshotId(table)) {
      return null;
    }
    if (added.size() > MAX_REMEMBERED_FILES) {
      added.clear();
      walked.clear();
    }
    for (Snapshot snapshot = table.currentSnapshot();
        snapshot != null && snapshot.timestampMillis() >= sinceMillis;
        snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
      if (walked.add(snapshot.snapshotId())) {
        rememberAdded(table, snapshot);
        known = added.get(path);
        if (known != null) {
          return known;
        }
      }
    }
    return null;
  }

  /** Remembers the data files of the manifests {@code snapshot} wrote (with their row ids). */
  private void rememberAdded(Table table, Snapshot snapshot) {
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      if (manifest.snapshotId() == null || manifest.snapshotId() != snapshot.snapshotId()) {
        continue;
      }
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(),
          table.specs()).select(MANIFEST_COLUMNS)) {
        for (DataFile file : reader) {
          if (file.firstRowId() != null) {
            added.put(file.location(), new AddedFile(file.location(), file.format(),
                file.firstRowId(), file.recordCount()));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
  }

  /**
   * The first {@code rows} row ids of a data file as Iceberg's reader gives them: with
   * {@code firstRowId} a null inherits it plus the position, without one a null is
   * {@link RowIdParquetWriter#INHERITED}. (Iceberg's reader reads no {@code _row_id} at all for
   * a file without a first row id, so such a file is read with one far below any id: a null
   * comes out negative, an id the file holds as it is.)
   */
  private static long[] read(Table table, String location, FileFormat format, long rows,
      Long firstRowId) {
    LongArrayBuilder fileIds = new LongArrayBuilder(rows);
    ReadBuilder<Record, Object> read = FormatModelRegistry.readBuilder(format, Record.class,
        table.io().newInputFile(location));
    read.project(new Schema(MetadataColumns.ROW_ID));
    read.idToConstant(Map.of(MetadataColumns.ROW_ID.fieldId(),
        firstRowId != null ? firstRowId : NO_FIRST_ROW_ID));
    try (CloseableIterable<Record> records = read.build()) {
      for (Record row : records) {
        Long id = (Long) row.get(0);
        fileIds.add(id == null || id < 0 ? RowIdParquetWriter.INHERITED : id);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the row ids of " + location, e);
    }
    return fileIds.build();
  }

  /** Longs of a file's rows, sized by its record count when known. */
  private static final class LongArrayBuilder {
    private long[] values;
    private int size;

    LongArrayBuilder(long expected) {
      this.values = new long[(int) Math.min(expected, 1 << 16)];
    }

    void add(long value) {
      if (size == values.length) {
        values = java.util.Arrays.copyOf(values, Math.max(16, values.length * 2));
      }
      values[size++] = value;
    }

    long[] build() {
      return size == values.length ? values : java.util.Arrays.copyOf(values, size);
    }
  }

  private void cache(String path, long[] fileIds) {
    ids.put(path, fileIds);
    cachedIds += fileIds.length;
    Iterator<Map.Entry<String, long[]>> oldest = ids.entrySet().iterator();
    while (cachedIds > maxCachedIds && oldest.hasNext()) {
      Map.Entry<String, long[]> evicted = oldest.next();
      if (evicted.getKey().equals(path)) {
        continue; // the one just read is used now
      }
      cachedIds -= evicted.getValue().length;
      oldest.remove();
    }
  }

  /** What reading a committed file's ids takes. */
  private record AddedFile(String location, FileFormat format, long firstRowId, long records) {}
}
