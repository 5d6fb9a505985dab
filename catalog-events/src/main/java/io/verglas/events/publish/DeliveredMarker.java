package io.verglas.events.publish;

import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The durable "delivered up to" position of an outbox: everything before it reached the feed.
 *
 * <p>Design. The file holds two fixed-size records; each write goes to the record the previous
 * write did not use and is forced before the caller goes on, and a reader takes the valid record
 * with the higher counter. A write torn by a crash therefore damages only the record being
 * written, and the other still holds the position before it: the entries in between are sent
 * again, which the feed's deduplication by event id absorbs. One small in-place write per
 * acknowledgement, with no rename and no directory sync; the caller decides when a write is
 * also forced to disk (a write reaches the kernel at once, so only an OS crash, not a process
 * crash, can lose an unforced one, and losing it only means sending again). The file is
 * written through {@link RandomAccessFile}, whose I/O an interrupt does not abort (an interrupted
 * {@code FileChannel} closes for good, which would end every later acknowledgement).
 *
 * <p>Record, version 1, big-endian, 32 bytes: {@code int version, long counter, long segment,
 * long offset, int crc} where {@code crc} is the CRC-32C of the 28 bytes before it.
 */
final class DeliveredMarker implements Closeable {
  static final int VERSION = 1;
  static final int RECORD_BYTES = 32;
  private static final int CHECKED_BYTES = RECORD_BYTES - Integer.BYTES;

  private final Path file;
  private final RandomAccessFile records;
  private final Optional<OutboxPosition> recovered;
  private final boolean damaged;
  private long counter;
  private boolean unforced;

  private DeliveredMarker(Path file, RandomAccessFile records, Optional<Record> newest,
      boolean damaged) {
    this.file = file;
    this.records = records;
    this.recovered = newest.map(Record::position);
    this.counter = newest.map(Record::counter).orElse(0L);
    this.damaged = damaged;
  }

  /** Opens (or creates) the marker file and reads the last position written to it. */
  static DeliveredMarker open(Path file) throws IOException {
    RandomAccessFile channel = new RandomAccessFile(file.toFile(), "rw");
    try {
      byte[] bytes = new byte[2 * RECORD_BYTES];
      int length = 0;
      for (int n; length < bytes.length
          && (n = channel.read(bytes, length, bytes.length - length)) > 0; ) {
        length += n;
      }
      Optional<Record> first = decode(bytes, 0, length, file);
      Optional<Record> second = decode(bytes, RECORD_BYTES, length, file);
      Optional<Record> newest = first.isEmpty() ? second : second.isEmpty() ? first
          : first.get().counter() > second.get().counter() ? first : second;
      return new DeliveredMarker(file, channel, newest, newest.isEmpty() && length > 0);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** The position read at open; empty for a new marker or one with no valid record. */
  Optional<OutboxPosition> recovered() {
    return recovered;
  }

  /** Whether the file had bytes but no valid record (both records damaged). */
  boolean damaged() {
    return damaged;
  }

  /** Records {@code position}; with {@code force}, durably before returning. */
  void write(OutboxPosition position, boolean force) throws IOException {
    long next = counter + 1;
    records.seek((next % 2) * RECORD_BYTES);
    records.write(encode(next, position));
    counter = next;
    unforced = true;
    if (force) {
      force();
    }
  }

  /** Forces the writes made so far to disk, if any is not yet. */
  void force() throws IOException {
    if (unforced) {
      records.getFD().sync();
      unforced = false;
    }
  }

  /** Forces what was written and closes the file. */
  @Override
  public void close() throws IOException {
    try (records) {
      force();
    }
  }

  static byte[] encode(long counter, OutboxPosition position) {
    ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
    record.putInt(VERSION).putLong(counter).putLong(position.segment()).putLong(position.offset());
    record.putInt((int) crc(record.array()));
    return record.array();
  }

  /** The record at {@code at}, if the bytes there hold a complete and intact one. */
  static Optional<Record> decode(byte[] bytes, int at, int length, Path file) {
    if (length < at + RECORD_BYTES) {
      return Optional.empty();
    }
    ByteBuffer record = ByteBuffer.wrap(bytes, at, RECORD_BYTES).slice();
    byte[] copy = new byte[RECORD_BYTES];
    record.get(copy).rewind();
    if ((int) crc(copy) != record.getInt(CHECKED_BYTES)) {
      return Optional.empty();
    }
    int version = record.getInt();
    if (version != VERSION) {
      throw new IllegalStateException("Cannot read outbox marker " + file + ": unknown version "
          + version + " (this version reads " + VERSION + ")");
    }
    long counter = record.getLong();
    long segment = record.getLong();
    long offset = record.getLong();
    if (segment < 1 || offset < 0) {
      return Optional.empty();
    }
    return Optional.of(new Record(counter, new OutboxPosition(segment, offset)));
  }

  private static long crc(byte[] record) {
    CRC32C crc = new CRC32C();
    crc.update(record, 0, CHECKED_BYTES);
    return crc.getValue();
  }

  @Override
  public String toString() {
    return file.toString();
  }

  record Record(long counter, OutboxPosition position) {}
}
