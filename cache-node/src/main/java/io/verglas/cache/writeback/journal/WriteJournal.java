package io.verglas.cache.writeback.journal;

import io.verglas.cache.writeback.fragment.LocalFiles;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's journal of write-back writes: append-only, every record fsynced before
 * {@link #append} returns, replayed by {@link #open} into the dirty set.
 *
 * <p>Design. Format: {@link JournalCodec}. Durability: a write is acknowledged only after its
 * {@link JournalRecord.Staged} record's append returned; a crash during an append leaves a torn
 * last record, which {@link JournalReplay} recognizes and {@link #open} truncates (never an
 * acknowledged write: its fsync had not returned). Idempotency: staging an identity again
 * replaces its record, marking it clean twice or marking an unknown identity clean does
 * nothing, so replaying a journal after a crash between two steps is safe. Disk: records of
 * clean writes are dropped by {@link #compact} (a new file with the dirty records, fsynced,
 * renamed over the old one, directory fsynced), which runs by itself once stale records
 * outnumber live ones by {@value #COMPACT_SLACK}. Concurrency: one lock over the file and the
 * dirty set, held for an append's one write and one fsync (group commit is a later step), never
 * over its replication: a slow or stalled peer holds up only the appends waiting for it, not the
 * others, nor reads of the dirty set. Appends of one write are ordered by the caller (the
 * stager's per-key locks), so each copy sees them in this journal's order.
 */
public final class WriteJournal implements Closeable {
  /** Stale records tolerated beyond twice the live ones before compaction. */
  static final int COMPACT_SLACK = 1024;
  /** How many of the last writes the replayed file marked clean {@link #retiredAtReplay} keeps. */
  static final int RETIRED_AT_REPLAY = 64;

  /**
   * Sends a record to the other nodes that keep a copy of this journal's records, before it is
   * appended here; a failure fails the append.
   */
  @FunctionalInterface
  public interface Replication {
    Replication NONE = record -> {};

    void replicate(JournalRecord record) throws IOException;
  }

  private final Path file;
  private final Replication replication;
  private final Map<ObjectIdentity, JournalRecord.Pending> dirty = new LinkedHashMap<>();
  private final ArrayDeque<JournalRecord.Staged> retiredAtReplay = new ArrayDeque<>();
  private final long discardedBytes;
  private FileChannel channel;
  private long staleRecords;

  private WriteJournal(Path file, FileChannel channel, long discardedBytes, Replication replication) {
    this.file = file;
    this.replication = replication;
    this.channel = channel;
    this.discardedBytes = discardedBytes;
  }

  /** Opens (creating) the journal and replays it; a torn last record is truncated away. */
  public static WriteJournal open(Path file) throws IOException {
    return open(file, Replication.NONE);
  }

  /** As {@link #open(Path)}, each later append first replicated with {@code replication}. */
  public static WriteJournal open(Path file, Replication replication) throws IOException {
    Path directory = file.toAbsolutePath().getParent();
    Files.createDirectories(directory);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    try {
      if (channel.size() < JournalCodec.FILE_HEADER) {
        initialize(channel);
        LocalFiles.forceDirectory(directory);
      }
      JournalReplay replay = JournalReplay.read(file, channel);
      long discarded = channel.size() - replay.validEnd();
      if (discarded > 0) {
        channel.truncate(replay.validEnd());
        channel.force(true);
      }
      WriteJournal journal = new WriteJournal(file, channel, discarded, replication);
      for (JournalRecord record : replay.records()) {
        journal.replayed(record, journal.apply(record));
      }
      return journal;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static void initialize(FileChannel channel) throws IOException {
    channel.truncate(0);
    writeFully(channel, ByteBuffer.wrap(JournalCodec.fileHeader()), 0);
    channel.force(true);
  }

  /**
   * Replicates the record (see {@link Replication}; outside this journal's lock), then appends it
   * and fsyncs the journal before returning: a record reaches its copies before it is journaled here.
   */
  public void append(JournalRecord record) throws IOException {
    replication.replicate(record);
    appendLocally(record);
  }

  private synchronized void appendLocally(JournalRecord record) throws IOException {
    writeFully(channel, ByteBuffer.wrap(JournalCodec.frame(record)), channel.size());
    channel.force(true);
    apply(record);
    if (staleRecords > 2L * dirty.size() + COMPACT_SLACK) {
      compact();
    }
  }

  /** Applies the record to the dirty set; returns the pending record a clean mark removed, or null. */
  private JournalRecord.Pending apply(JournalRecord record) {
    if (record instanceof JournalRecord.Pending pending) {
      staleRecords += dirty.put(pending.identity(), pending) == null ? 0 : 1;
      return null;
    }
    JournalRecord.Pending removed = dirty.remove(record.identity());
    staleRecords += removed == null ? 1 : 2;
    return removed;
  }

  private void replayed(JournalRecord record, JournalRecord.Pending removed) {
    if (removed instanceof JournalRecord.Staged staged) {
      retiredAtReplay.addLast(staged);
      if (retiredAtReplay.size() > RETIRED_AT_REPLAY) {
        retiredAtReplay.removeFirst();
      }
    } else if (record instanceof JournalRecord.Pending pending) {
      retiredAtReplay.removeIf(r -> r.identity().equals(pending.identity()));
    }
  }

  /**
   * The last {@value #RETIRED_AT_REPLAY} writes the file marked clean when it was opened, oldest
   * first: a crash between a clean mark and the release of the write's fragments (which follows
   * it) leaves fragments no record names, and releasing these again on start removes them.
   */
  public synchronized List<JournalRecord.Staged> retiredAtReplay() {
    return List.copyOf(retiredAtReplay);
  }

  /** The writes staged and not yet marked clean, oldest first. */
  public synchronized List<JournalRecord.Staged> dirty() {
    return dirty.values().stream().filter(JournalRecord.Staged.class::isInstance)
        .map(JournalRecord.Staged.class::cast).toList();
  }

  /** The staged writes and journaled deletes not yet marked clean, in journal order. */
  public synchronized List<JournalRecord.Pending> pending() {
    return List.copyOf(dirty.values());
  }

  /** Bytes of a torn last record that {@link #open} discarded. */
  public long discardedBytes() {
    return discardedBytes;
  }

  public synchronized long sizeBytes() throws IOException {
    return channel.size();
  }

  /** Rewrites the journal with only the dirty records. */
  public synchronized void compact() throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".compact");
    try (FileChannel out = FileChannel.open(next, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      initialize(out);
      for (JournalRecord.Pending pending : dirty.values()) {
        writeFully(out, ByteBuffer.wrap(JournalCodec.frame(pending)), out.size());
      }
      out.force(true);
    }
    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE);
    LocalFiles.forceDirectory(file.toAbsolutePath().getParent());
    channel.close();
    channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    staleRecords = 0;
  }

  private static void writeFully(FileChannel channel, ByteBuffer bytes, long position) throws IOException {
    long at = position;
    while (bytes.hasRemaining()) {
      at += channel.write(bytes, at);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }
}
