package io.verglas.materializer.write;

import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.data.BackgroundWrites;
import io.verglas.materializer.data.PartitionedDataWriter;
import io.verglas.materializer.data.RowIdParquetWriter;
import io.verglas.materializer.delta.StagingPolicy;
import io.verglas.materializer.delta.TableBuffer;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.delta.TableInterval;
import io.verglas.materializer.keyindex.KeyEntry;
import io.verglas.materializer.keyindex.KeyEntrySerializer;
import io.verglas.materializer.keyindex.KeyIndex;
import io.verglas.materializer.keyindex.KeyedIndexPageStore;
import io.verglas.materializer.lineage.CommittedRowIds;
import io.verglas.materializer.lineage.RowLineage;
import io.verglas.materializer.source.WalRow;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.wal.WalPosition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed writer: turns WAL rows into Parquet data files and deletion requests, and keeps the
 * primary-key index.
 *
 * <p>Design. Input is keyed by routing key ({@code tableUuid/key}), so every version of a
 * primary key reaches the same subtask, whose keyed state (RocksDB, in pages of its key
 * group, read through a bounded heap cache and written back at checkpoints: {@link KeyIndex})
 * holds one {@link KeyEntry} per key: the WAL position of the materialized version and where it
 * lives (data file, row position), or a tombstone.
 * <ol>
 *   <li>Arriving rows are only buffered, per table ({@link TableBuffer}).
 *   <li>Once they exceed a sixteenth of the configured byte bound ({@link #FLUSH_FRACTION}),
 *       and at {@link #prepareSnapshotPreBarrier} (before the barrier leaves, so the result
 *       belongs to this checkpoint), the buffers are flushed. Only the newest buffered row of
 *       each key counts, in the full {@link WalPosition} order (hybrid clock, then stream,
 *       sequence, batch, row), so duplicates and rows replaced within one flush never reach a
 *       file. Per such row the index entry is read; a buffered row that is not newer than the
 *       entry loses (a stream that lags behind another can deliver older versions late).
 *       Otherwise the entry's live version, if any, is recorded as a delete (file, position),
 *       the new version is written to the data file of its partition (or a tombstone is stored
 *       for a delete) and the entry is pointed at it. Append-only tables (no primary key) write
 *       every row and touch no state.
 *   <li>A table's data files stay open from its first flush in an interval to the barrier
 *       ({@link TableInterval}): many small flushes make the files one large flush would. A key
 *       written by one flush and again by a later one of the same interval takes the place of
 *       its row (the entry points at it) while that row is still staged; once encoded, the row
 *       gets a delete, which the committer applies in the same commit, as does a staged row
 *       replaced by a delete or by a version in another partition. How long rows stay staged,
 *       a batch or the whole interval, is chosen per table by a {@link StagingPolicy}: tables
 *       whose keys change within a checkpoint are staged to the end, so that no version replaced
 *       within one reaches a data file. Intervals end early, their files joining the checkpoint
 *       as they are: the least recently written first while the open intervals hold more than
 *       half the byte bound (rows, and the configured bytes of each file whose Parquet writer
 *       is open: {@link TableInterval#heldBytes}) or are more than the configured number of
 *       tables; and a table's when its schema or partition spec changed. So a writer's memory
 *       is bounded however many tables a checkpoint touches.
 *   <li>At the barrier one {@link TableDelta} per table is emitted downstream to the committer,
 *       with the segment progress of every row consumed, losers included.
 * </ol>
 *
 * <p>Flushes between barriers run on a flush thread of their own while the task thread goes on
 * buffering arriving rows. Why: the channel from the source holds a few hundred KB, so a flush
 * on the task thread stopped the source within a millisecond, and on a small machine one core
 * then sat idle for every flush. Small flushes keep that thread busy as rows arrive, and leave
 * little to the barrier, where the task thread flushes the rest while the source waits (with
 * flushes at half the bound, measured in the materialize benchmark, two thirds of the flush work
 * ran at the barrier). At most one flush runs at a time and the next waits for it, so flushes
 * apply in arrival order and the rows held (arriving, being flushed, in open files) stay within
 * the bound. The flush thread is the only thread that touches the open intervals while it runs,
 * and the keyed state is touched by it or by the key index's write-back thread, one at a time
 * (see {@link KeyIndex}): arriving rows set no key context (see {@link #setKeyContextElement1}),
 * and {@link #prepareSnapshotPreBarrier} hands the index's last writes over and waits for them,
 * so the snapshot sees every write.
 *
 * <p>Stale entries. Another writer (our maintenance job, Spark's {@code rewrite_data_files})
 * may rewrite a data file after the index pointed at it: the rows move to new files and
 * positions, and the index cannot know (only this operator writes keyed state, and nothing tells
 * it). The index position is therefore only a hint: every delete carries the row's primary key
 * ({@link KeyRows} payload in {@link DeletedRows}), and the committer, which sees the snapshot it
 * commits on, uses the position when the file is still live and otherwise looks the key up in
 * the files that replaced it (see {@code TableCommitter}). Files are immutable, so a hint whose
 * file is live is exact. A stale entry heals itself when its key is next written (the entry
 * then points at the new file), so each costs at most one look-up, and only if its key changes.
 * This keeps the writer free of catalog reads on its hot path and keeps the decision where the
 * snapshot is known; the price is that a key-less (version 1) delta cannot be re-resolved once
 * the old file is unreadable.
 *
 * <p>Row lineage (format version 3). The new version of an existing key is written with the
 * key's {@code _row_id} ({@link RowLineage}): the ids of this writer's recent files are in
 * memory, others come from the table, and a null id in the previous checkpoint's file is known
 * only once that file is committed, so such a row waits for the commit (bounded; see
 * {@link CommittedRowIds}). That is the one catalog read on the flush path, once per file.
 *
 * <p>The index is written before the commit happens. That is consistent because both live in
 * the same checkpoint: if the checkpoint completes, the committer commits the delta (it keeps
 * it in its own state until it has); if it does not, the job restores the previous index.
 */
public final class DeltaWriterOperator extends AbstractStreamOperator<TableDelta>
    implements OneInputStreamOperator<WalRow, TableDelta> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DeltaWriterOperator.class);

  /**
   * The name of the key index state of builds before its pages ({@link KeyIndex}): one entry
   * per routing key, written by {@link KeyEntrySerializer}. A restored writer moves such entries
   * into pages.
   */
  static final String LEGACY_KEY_INDEX = "key-index";

  /** The per-key index state of earlier builds, as they declared it. */
  static ValueStateDescriptor<KeyEntry> legacyKeyIndexDescriptor() {
    return new ValueStateDescriptor<>(LEGACY_KEY_INDEX, new KeyEntrySerializer());
  }
  /**
   * Buffered rows are flushed once they exceed this fraction of the byte bound: small flushes
   * keep the flush thread busy while rows arrive, leaving little for the barrier (see the class
   * comment).
   */
  static final int FLUSH_FRACTION = 16;
  /**
   * Threads encoding data files. Two: an interval staged to its end is encoded at the barrier,
   * while the source and the flush thread wait, and a single thread left a core idle then.
   */
  static final int ENCODING_LANES = 2;

  private final MaterializerConfig config;
  private transient KeyIndex keyIndex;
  /** Row ids for new versions of existing keys; touched only by the flushing thread. */
  private transient RowLineage lineage;
  private transient VerglasTables tables;
  /** The threads that encode data files, one file per partition and lane at most. */
  private transient List<BackgroundWrites> lanes;
  private transient BackgroundWrites flusher;
  /** The thread writing the key index back behind the flushes (see {@link KeyIndex}). */
  private transient BackgroundWrites indexWrites;
  private transient Map<String, TableBuffer> buffers;
  /**
   * By table, least recently written first: the interval's open files and deletes; touched only
   * by the flushing thread.
   */
  private transient Map<String, TableInterval> intervals;
  /** How each table's next interval stages its rows; touched only by the flushing thread. */
  private transient StagingPolicy staging;
  /** By table: the deltas of the intervals ended since the last barrier. */
  private transient Map<String, List<TableDelta>> flushed;
  private transient long bufferedBytes;
  private transient int subtask;
  private transient int maxParallelism;
  private transient long attempt;
  private transient long earlyFlushes;
  private transient long earlyEnds;
  private transient long intervalsOpened;
  private transient int peakBufferedTables;
  private transient int peakOpenIntervals;
  private transient boolean restored;

  public DeltaWriterOperator(MaterializerConfig config) {
    this.config = config;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    restored = context.isRestored();
  }

  @Override
  public void open() throws Exception {
    super.open();
    subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    maxParallelism = getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
    attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
    indexWrites = new BackgroundWrites("verglas-index-" + subtask);
    keyIndex = new KeyIndex(new KeyedIndexPageStore(getKeyedStateBackend()), maxParallelism,
        config.writerIndexCacheEntries(), !restored, indexWrites);
    if (restored) {
      migrateLegacyKeyIndex();
      restoreKeyIndex();
    }
    tables = new VerglasTables(config.newCatalog());
    lineage = new RowLineage(new CommittedRowIds(config.writerRowIdWait(),
        CommittedRowIds.MAX_CACHED_IDS_DEFAULT));
    buffers = new LinkedHashMap<>();
    intervals = new LinkedHashMap<>(16, 0.75f, true); // access order: a write is an access
    flushed = new LinkedHashMap<>();
    staging = new StagingPolicy(config.intervalStaging());
    lanes = new ArrayList<>(ENCODING_LANES);
    for (int lane = 0; lane < ENCODING_LANES; lane++) {
      lanes.add(new BackgroundWrites("verglas-data-writer-" + subtask + "-" + lane));
    }
    flusher = new BackgroundWrites("verglas-flush-" + subtask);
    getMetricGroup().gauge("bufferedBytes", () -> bufferedBytes);
    getMetricGroup().gauge("earlyFlushes", () -> earlyFlushes);
    getMetricGroup().gauge("openIntervals", () -> intervals.size());
    getMetricGroup().gauge("peakOpenIntervals", () -> peakOpenIntervals);
    getMetricGroup().gauge("intervalsEndedEarly", () -> earlyEnds);
    getMetricGroup().gauge("keyIndexCacheHits", keyIndex::hits);
    getMetricGroup().gauge("keyIndexCacheMisses", keyIndex::misses);
    getMetricGroup().gauge("keyIndexStateReads", keyIndex::stateReads);
    getMetricGroup().gauge("keyIndexCachedEntries", keyIndex::cachedEntries);
    getMetricGroup().gauge("keyIndexWriteBacks", keyIndex::writeBacks);
    getMetricGroup().gauge("keyIndexPagesWritten", keyIndex::pagesWritten);
    getMetricGroup().gauge("keyIndexPagesRead", keyIndex::pagesRead);
    // Per-table memory exists only for tables with rows in flight: these show it (and tests
    // assert that idle tables never appear in them).
    getMetricGroup().gauge("bufferedTables", () -> buffers.size());
    getMetricGroup().gauge("peakBufferedTables", () -> peakBufferedTables);
    getMetricGroup().gauge("loadedTables", () -> tables.size());
    getMetricGroup().gauge("stagedTables", () -> staging.stagedTables());
    getMetricGroup().gauge("rowIdsLost", () -> lineage.lostRows());
  }

  /**
   * Moves the entries of a per-key index, as builds before the pages stored it, into pages: each
   * entry is read and cleared under its routing key, whose key group its page joins.
   */
  private void migrateLegacyKeyIndex() throws Exception {
    KeyedStateBackend<String> backend = getKeyedStateBackend();
    try (Stream<String> keys = backend.getKeys(LEGACY_KEY_INDEX, VoidNamespace.INSTANCE)) {
      if (keys.findAny().isEmpty()) {
        return;
      }
    }
    long[] migrated = {0};
    backend.applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
        legacyKeyIndexDescriptor(), (routingKey, state) -> {
          KeyEntry entry = state.value();
          int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(routingKey, maxParallelism);
          state.clear();
          if (entry != null) {
            keyIndex.migrate(routingKey, keyGroup, entry); // may set another current key
            migrated[0]++;
          }
        });
    keyIndex.finishMigration();
    LOG.info("Writer {} moved {} entries of a per-key key index into pages", subtask,
        migrated[0]);
  }

  /**
   * Reads a restored key index into the cache if it fits, so that a cache miss again means a new
   * key (see {@link KeyIndex}); a larger one stays in the state and misses read it.
   */
  private void restoreKeyIndex() throws Exception {
    long stored = keyIndex.restore(KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
        maxParallelism, getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
        subtask));
    if (keyIndex.complete()) {
      LOG.info("Writer {} read its restored key index ({} entries) into the cache", subtask,
          stored);
    } else {
      LOG.info("Writer {} restored a key index of {} entries, more than its cache holds ({}): "
          + "look-ups of keys not cached read the state", subtask, stored,
          config.writerIndexCacheEntries());
    }
  }

  /**
   * Rows are only buffered on arrival; the key index is read and written at flush time, where
   * each key is set explicitly. Declaring no per-record key context keeps Flink from serializing
   * every arriving row's key into the state backend's key builder for nothing.
   */
  @Override
  public boolean hasKeyContext1() {
    return false;
  }

  /**
   * Never sets the key context: while an early flush or its key index writes run, their thread
   * holds the state backend's current key, and a key set here on the task thread would send
   * their reads and writes to another key's entry. Flink's runtime skips this call for an
   * operator without a key context, but not every caller does (its operator test harness sets it
   * for each record), so the guarantee lives here.
   */
  @Override
  @SuppressWarnings("rawtypes")
  public void setKeyContextElement1(StreamRecord record) {}

  @Override
  public void processElement(StreamRecord<WalRow> element) throws Exception {
    WalRow row = element.getValue();
    TableBuffer buffer = buffers.computeIfAbsent(row.tableUuid,
        uuid -> new TableBuffer(uuid, row.tableName, maxParallelism));
    peakBufferedTables = Math.max(peakBufferedTables, buffers.size());
    bufferedBytes += buffer.add(row);
    if (bufferedBytes > config.writerBufferBytes() / FLUSH_FRACTION) {
      earlyFlushes++;
      flushInBackground();
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    flusher.await();
    flushAll(takeBuffers());
    keyIndex.writeBack();
    endIntervals(); // while the key index is written back, when on a thread of its own
    keyIndex.awaitWrites();
    staging.checkpointed();
    for (List<TableDelta> parts : flushed.values()) {
      TableDelta merged = TableDelta.merge(parts).withCheckpoint(checkpointId, subtask);
      output.collect(new StreamRecord<>(merged));
    }
    flushed.clear();
    lineage.checkpointed();
  }

  /** Hands the buffered rows to the flush thread, once it has finished the previous flush. */
  private void flushInBackground() throws InterruptedException {
    flusher.await();
    Map<String, TableBuffer> rows = takeBuffers();
    flusher.submit(() -> {
      try {
        flushAll(rows);
      } catch (Exception e) {
        throw new IllegalStateException("Writer " + subtask + " failed to flush "
            + rows.size() + " tables' rows: " + e.getMessage(), e);
      }
    });
  }

  /** Test seam: the most tables that had an open interval at once. */
  int peakOpenIntervals() {
    return peakOpenIntervals;
  }

  /** Test seam: waits until the flush thread has applied what it was handed. */
  void awaitFlushes() throws InterruptedException {
    flusher.await();
  }

  /** The buffered rows by table; the buffer starts empty. */
  private Map<String, TableBuffer> takeBuffers() {
    Map<String, TableBuffer> taken = buffers;
    buffers = new LinkedHashMap<>();
    bufferedBytes = 0;
    return taken;
  }

  private void flushAll(Map<String, TableBuffer> rows) throws Exception {
    for (TableBuffer buffer : rows.values()) {
      long start = System.nanoTime();
      flush(buffer);
      LOG.debug("Writer {} flushed {} keyed and {} appended rows of table {} in {} ms", subtask,
          buffer.keyedRows(), buffer.appends().size(), buffer.tableName,
          (System.nanoTime() - start) / 1_000_000);
    }
    keyIndex.endBatch();
    endIntervalsOverBound();
  }

  /**
   * Ends the least recently written intervals, their files joining the checkpoint as they are,
   * while the open ones hold more than half the byte bound.
   */
  private void endIntervalsOverBound() throws InterruptedException {
    long held = 0;
    for (TableInterval interval : intervals.values()) {
      held += interval.heldBytes(config.writerOpenFileBytes());
    }
    long bound = config.writerBufferBytes() / 2;
    if (held > bound) {
      LOG.debug("Writer {} holds {} bytes in {} open intervals (bound {}); ending the least "
          + "recently written before the checkpoint", subtask, held, intervals.size(),
          config.writerBufferBytes());
    }
    while (held > bound && !intervals.isEmpty()) {
      TableInterval eldest = intervals.values().iterator().next();
      held -= eldest.heldBytes(config.writerOpenFileBytes());
      endEarly(eldest.tableUuid);
    }
  }

  private void endEarly(String tableUuid) throws InterruptedException {
    earlyEnds++;
    endInterval(tableUuid);
  }

  private void endIntervals() throws InterruptedException {
    for (String tableUuid : new ArrayList<>(intervals.keySet())) {
      endInterval(tableUuid);
    }
  }

  private void flush(TableBuffer buffer) throws Exception {
    Optional<Table> loaded = tables.load(buffer.tableUuid, buffer.tableName);
    if (loaded.isEmpty()) {
      LOG.warn("Dropping {} buffered rows of table {} ({}): the table is not available",
          buffer.appends().size() + buffer.keyedRows(), buffer.tableName, buffer.tableUuid);
      return;
    }
    TableInterval interval = intervalFor(buffer, loaded.get());
    for (WalRow row : buffer.appends()) {
      write(row, interval);
    }
    for (WalRow row : buffer.latestPerKey()) {
      materialize(row, interval);
    }
    interval.consumed(buffer.segments());
  }

  /**
   * The table's open interval, or a new one; an interval opened on another schema or partition
   * spec of the table ends first (its files join the checkpoint as they are).
   */
  private TableInterval intervalFor(TableBuffer buffer, Table table) throws InterruptedException {
    TableInterval open = intervals.get(buffer.tableUuid);
    if (open != null && open.writesFor(table)) {
      return open;
    }
    if (open != null) {
      endInterval(buffer.tableUuid);
    } else if (intervals.size() >= config.writerMaxOpenTables()) {
      endEarly(intervals.keySet().iterator().next()); // the least recently written
    }
    TableInterval interval = new TableInterval(buffer.tableUuid, buffer.tableName, table,
        subtask, attempt, lanesFrom(intervalsOpened++), staging.next(buffer.tableUuid));
    intervals.put(buffer.tableUuid, interval);
    peakOpenIntervals = Math.max(peakOpenIntervals, intervals.size());
    return interval;
  }

  /**
   * The encoding lanes, starting from the {@code turn}-th: intervals open their first files on
   * the lanes in turn, so that the files of many tables are encoded in parallel.
   */
  private List<BackgroundWrites> lanesFrom(long turn) {
    List<BackgroundWrites> rotated = new ArrayList<>(lanes);
    Collections.rotate(rotated, (int) -(turn % lanes.size()));
    return rotated;
  }

  /**
   * Closes the table's interval; its delta joins the checkpoint's. An interval that fails to
   * close stays, for {@link #close} to delete its files.
   */
  private void endInterval(String tableUuid) throws InterruptedException {
    TableInterval interval = intervals.get(tableUuid);
    TableDelta delta = interval.complete();
    intervals.remove(tableUuid);
    staging.ended(tableUuid, interval.replacements());
    lineage.ended(interval);
    flushed.computeIfAbsent(tableUuid, uuid -> new ArrayList<>()).add(delta);
  }

  /** Applies one primary-key row against the key index. */
  private void materialize(WalRow row, TableInterval interval) throws Exception {
    if (Thread.currentThread().isInterrupted()) {
      // Cancelled: the state backend is disposed once close() has stopped the flush thread.
      throw new InterruptedException("Writer " + subtask + " was cancelled during a flush");
    }
    KeyIndex.Slot slot = keyIndex.read(row);
    KeyEntry entry = slot.entry();
    WalPosition position = row.position();
    if (entry != null && entry.walPosition().compareTo(position) >= 0) {
      return; // an equal or newer version is already materialized
    }
    if (entry != null && !entry.deleted) {
      if (!row.isDelete() && replaceStaged(row, entry, interval)) {
        slot.update(KeyEntry.live(position, entry.dataFile, entry.filePosition));
        return;
      }
      // The entry's file may have been rewritten by a compaction since: the key goes with the
      // position so that the committer can find the row again (see the class comment).
      interval.delete(entry.dataFile, entry.filePosition, row.key);
    }
    if (row.isDelete()) {
      slot.update(KeyEntry.tombstone(position));
    } else {
      long rowId = entry != null && !entry.deleted && interval.writesRowIds()
          ? lineage.rowIdOf(interval, entry, () -> interval.decode(row.payload, row.schemaId))
          : RowIdParquetWriter.INHERITED;
      PartitionedDataWriter.FilePosition at = write(row, interval, rowId);
      slot.update(KeyEntry.live(position, at.path(), at.position()));
    }
  }

  private static PartitionedDataWriter.FilePosition write(WalRow row, TableInterval interval)
      throws InterruptedException {
    return write(row, interval, RowIdParquetWriter.INHERITED);
  }

  private static PartitionedDataWriter.FilePosition write(WalRow row, TableInterval interval,
      long rowId) throws InterruptedException {
    try {
      return interval.write(row.payload, row.schemaId, rowId);
    } catch (IllegalArgumentException e) {
      throw unwritable(row, e);
    }
  }

  /** Whether the row took the place of its key's version staged in the interval at entry. */
  private static boolean replaceStaged(WalRow row, KeyEntry entry, TableInterval interval) {
    try {
      return interval.replace(entry.dataFile, entry.filePosition, row.payload, row.schemaId);
    } catch (IllegalArgumentException e) {
      throw unwritable(row, e);
    }
  }

  private static IllegalStateException unwritable(WalRow row, IllegalArgumentException e) {
    return new IllegalStateException("Cannot write row of table " + row.tableName + " from "
        + row.segmentKey + " batch " + row.batch + " row " + row.row + ": " + e.getMessage(), e);
  }

  private void abandonIntervals() {
    if (intervals != null) {
      intervals.values().forEach(TableInterval::close);
      intervals.clear();
    }
  }

  private void closeLanes() {
    if (lanes != null) {
      lanes.forEach(BackgroundWrites::close);
    }
  }

  @Override
  public void close() throws Exception {
    // Closed in reverse order: the flush thread stops, then the thread writing the key index
    // (before the state backend is disposed), then the open files are deleted once their
    // background writes have stopped, then the encoding lanes.
    try (AutoCloseable closeLanes = this::closeLanes;
        AutoCloseable abandonIntervals = this::abandonIntervals;
        AutoCloseable closeIndexWrites = indexWrites;
        AutoCloseable closeFlusher = flusher) {
      if (tables != null) {
        tables.close();
      }
    } finally {
      super.close();
    }
  }
}
