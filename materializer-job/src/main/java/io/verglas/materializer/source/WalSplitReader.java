package io.verglas.materializer.source;

import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.materializer.store.WalStore;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads WAL segments on the fetcher thread: GETs a segment, verifies it (a corrupt segment fails
 * the job, it is never skipped), resolves its table and hands out its rows one batch per fetch.
 *
 * <p>Segments whose table is gone (dropped, re-created, not managed) are left in place and
 * skipped with a warning. Segments the table's summary already records as wholly committed (a
 * restart without a checkpoint, or a crash between commit and cleanup) are deleted. A segment
 * that no longer exists was committed and deleted by an earlier run: only the committer deletes
 * segments, and only after their rows are committed.
 */
final class WalSplitReader implements SplitReader<WalRow, WalSplit> {
  private static final Logger LOG = LoggerFactory.getLogger(WalSplitReader.class);

  private final WalStore store;
  private final VerglasTables tables;
  private final BufferAllocator allocator;
  private final PriorityQueue<WalSplit> pending = new PriorityQueue<>(
      Comparator.comparing(WalSplit::streamId).thenComparingLong(WalSplit::sequence));
  private WalSplit currentSplit;
  private SegmentRows current;

  WalSplitReader(WalStore store, VerglasTables tables) {
    this.store = store;
    this.tables = tables;
    this.allocator = new RootAllocator();
  }

  static WalSplitReader create(MaterializerConfig config) {
    return new WalSplitReader(config.newWalStore(), new VerglasTables(config.newCatalog()));
  }

  @Override
  public RecordsWithSplitIds<WalRow> fetch() {
    RecordsBySplits.Builder<WalRow> records = new RecordsBySplits.Builder<>();
    if (current == null) {
      WalSplit split = pending.poll();
      if (split == null) {
        return records.build();
      }
      Optional<SegmentRows> opened = open(split);
      if (opened.isEmpty()) {
        records.addFinishedSplit(split.splitId());
        return records.build();
      }
      currentSplit = split;
      current = opened.get();
    }
    List<WalRow> rows = current.next();
    records.addAll(currentSplit, rows);
    if (!current.hasNext()) {
      records.addFinishedSplit(currentSplit.splitId());
      current = null;
      currentSplit = null;
    }
    return records.build();
  }

  private Optional<SegmentRows> open(WalSplit split) {
    Optional<byte[]> bytes = store.get(split.key());
    if (bytes.isEmpty()) {
      LOG.warn("WAL segment {} no longer exists; it was committed and deleted by an earlier run",
          split.key());
      return Optional.empty();
    }
    WalSegment segment;
    try {
      segment = WalSegmentCodec.decode(bytes.get());
    } catch (CorruptSegmentException e) {
      throw new CorruptSegmentException("Cannot read WAL segment " + split.key() + ": "
          + e.getMessage(), e);
    }
    WalSegmentHeader header = segment.header();
    if (!header.streamId().equals(split.streamId()) || header.sequence() != split.sequence()) {
      throw new CorruptSegmentException("Cannot read WAL segment " + split.key()
          + ": its header names stream " + header.streamId() + " sequence " + header.sequence());
    }
    String tableName = VerglasTables.name(header.tableName());
    Optional<Table> table = tables.load(header.tableUuid(), tableName);
    if (table.isEmpty()) {
      LOG.warn("Skipping WAL segment {}: table {} ({}) is not available", split.key(), tableName,
          header.tableUuid());
      return Optional.empty();
    }
    if (!table.get().schemas().containsKey(header.schemaId())) {
      LOG.warn("WAL segment {} was written with schema {} which table {} does not know;"
          + " reading it with the current schema", split.key(), header.schemaId(), tableName);
    }
    WalMark committed = WalSummary.committed(table.get())
        .getOrDefault(header.streamId(), WalMark.NONE);
    long rowCount = SegmentRows.countRows(segment, null);
    if (committed.coversSegment(header.sequence(), rowCount) || rowCount == 0) {
      LOG.info("Deleting WAL segment {}: table {} already has all its rows", split.key(), tableName);
      store.delete(split.key());
      return Optional.empty();
    }
    return Optional.of(new SegmentRows(split.key(), segment, table.get().schema(), committed,
        split.rowsEmitted(), allocator));
  }

  @Override
  public void handleSplitsChanges(SplitsChange<WalSplit> splitsChanges) {
    if (!(splitsChanges instanceof SplitsAddition)) {
      throw new UnsupportedOperationException("Cannot handle split change "
          + splitsChanges.getClass().getSimpleName());
    }
    pending.addAll(splitsChanges.splits());
  }

  @Override
  public void wakeUp() {
    // fetch() never blocks for long: one GET or one batch.
  }

  @Override
  public void close() throws Exception {
    current = null;
    try (store; tables) {
      allocator.close();
    }
  }
}
