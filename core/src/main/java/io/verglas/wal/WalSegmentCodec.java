package io.verglas.wal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads and writes the WAL segment byte format (documented in docs/wal-format.md): writes
 * version 2, reads versions 1 and 2.
 *
 * <pre>
 *   "VWAL"  u16 version  u32 headerLength  header  u32 crc32c(header)
 *   u64 bodyLength  body  u32 crc32c(body)
 * </pre>
 *
 * The body is the batches back to back: {@code i64 hlc, i32 rows, u8 hasKey, [utf key],
 * i32 ipcLength, ipc bytes}. A reader accepts a segment only if both checksums match and the
 * lengths account for every byte, so a truncated or partially written object is never valid.
 *
 * <p>Versions. The two have the same layout. In version 1 every batch's buffers are zstd; in
 * version 2 a batch's buffers may also be lz4_frame or uncompressed, as the Arrow IPC message
 * of each batch says (ingest writes the buffers its clients compressed as they came). The
 * version tells a reader built for version 1's zstd-only promise that it may meet other codecs,
 * rather than letting it fail on a batch in the middle of a segment.
 */
public final class WalSegmentCodec {
  /** The version this codec writes. */
  public static final int FORMAT_VERSION = 2;
  /** The oldest version it reads. */
  public static final int MIN_READ_VERSION = 1;
  static final byte[] MAGIC = {'V', 'W', 'A', 'L'};
  /** The longest idempotency key a batch may carry, in characters. */
  public static final int MAX_KEY_LENGTH = 256;

  private WalSegmentCodec() {}

  public static byte[] encode(WalSegmentHeader header, List<WalBatch> batches) {
    return encodeParts(header, batches).toByteArray();
  }

  /**
   * Encodes a segment without copying the batches' IPC bytes: the result references them
   * between the framing this method writes. Same bytes as {@link #encode}.
   */
  public static EncodedSegment encodeParts(WalSegmentHeader header, List<WalBatch> batches) {
    try {
      byte[] headerBytes = headerBytes(header, batches.size());
      List<byte[]> body = new ArrayList<>(batches.size() * 2);
      CRC32C bodyCrc = new CRC32C();
      long bodyLength = 0;
      for (WalBatch batch : batches) {
        byte[] frame = batchFrame(batch);
        body.add(frame);
        body.add(batch.arrowIpc());
        bodyCrc.update(frame, 0, frame.length);
        bodyCrc.update(batch.arrowIpc(), 0, batch.arrowIpc().length);
        bodyLength += frame.length + batch.arrowIpc().length;
      }
      ByteArrayOutputStream prefix = new ByteArrayOutputStream(headerBytes.length + 32);
      DataOutputStream out = new DataOutputStream(prefix);
      out.write(MAGIC);
      out.writeShort(FORMAT_VERSION);
      out.writeInt(headerBytes.length);
      out.write(headerBytes);
      out.writeInt(crc(headerBytes));
      out.writeLong(bodyLength);
      out.flush();
      ByteArrayOutputStream suffix = new ByteArrayOutputStream(4);
      new DataOutputStream(suffix).writeInt((int) bodyCrc.getValue());
      List<byte[]> parts = new ArrayList<>(body.size() + 2);
      parts.add(prefix.toByteArray());
      parts.addAll(body);
      parts.add(suffix.toByteArray());
      return new EncodedSegment(parts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fields of one body batch that precede its IPC bytes. */
  private static byte[] batchFrame(WalBatch batch) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeLong(batch.hlc());
    out.writeInt(batch.rowCount());
    String key = batch.idempotencyKey();
    out.writeBoolean(key != null);
    if (key != null) {
      if (key.length() > MAX_KEY_LENGTH) {
        throw new IllegalArgumentException("Invalid idempotency key: longer than "
            + MAX_KEY_LENGTH + " characters");
      }
      out.writeUTF(key);
    }
    out.writeInt(batch.arrowIpc().length);
    out.flush();
    return bytes.toByteArray();
  }

  public static WalSegment decode(byte[] segment) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(segment));
      byte[] magic = in.readNBytes(4);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new CorruptSegmentException("Cannot read WAL segment: bad magic");
      }
      int version = in.readUnsignedShort();
      if (version < MIN_READ_VERSION || version > FORMAT_VERSION) {
        throw new CorruptSegmentException("Cannot read WAL segment: unknown version " + version);
      }
      int headerLength = in.readInt();
      int headerAt = checked(segment, in, headerLength, "header");
      long bodyLength = in.readLong();
      int bodyAt = checked(segment, in, bodyLength, "body");
      if (in.available() > 0) {
        throw new CorruptSegmentException("Cannot read WAL segment: trailing bytes");
      }
      DataInputStream header = range(segment, headerAt, headerLength);
      WalSegmentHeader parsed = readHeader(header);
      int batchCount = header.readInt();
      return new WalSegment(parsed, readBody(range(segment, bodyAt, (int) bodyLength),
          batchCount));
    } catch (EOFException e) {
      throw new CorruptSegmentException("Cannot read WAL segment: truncated", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Checks the part of {@code length} bytes that {@code in} (over {@code segment}) is at against
   * the checksum after it, and moves past both; returns where the part starts. Parts are read in
   * place: a segment is about a megabyte, and copying it out part by part, then batch by batch,
   * made the reader allocate it three times.
   */
  private static int checked(byte[] segment, DataInputStream in, long length, String part)
      throws IOException {
    if (length < 0 || length > in.available()) {
      throw new CorruptSegmentException("Cannot read WAL segment: " + part + " length " + length
          + " exceeds the segment");
    }
    int at = segment.length - in.available();
    in.skipNBytes(length);
    int expected = in.readInt();
    if (crc(segment, at, (int) length) != expected) {
      throw new CorruptSegmentException("Cannot read WAL segment: " + part + " checksum mismatch");
    }
    return at;
  }

  private static DataInputStream range(byte[] segment, int at, int length) {
    return new DataInputStream(new ByteArrayInputStream(segment, at, length));
  }

  private static byte[] headerBytes(WalSegmentHeader header, int batchCount) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeUTF(header.tableUuid());
    out.writeShort(header.tableName().size());
    for (String level : header.tableName()) {
      out.writeUTF(level);
    }
    out.writeInt(header.schemaId());
    out.writeUTF(header.streamId());
    out.writeLong(header.sequence());
    out.writeLong(header.recordCount());
    out.writeLong(header.hlcMin());
    out.writeLong(header.hlcMax());
    out.writeLong(header.createdAtMillis());
    out.writeInt(batchCount);
    out.flush();
    return bytes.toByteArray();
  }

  private static WalSegmentHeader readHeader(DataInputStream in) throws IOException {
    String tableUuid = in.readUTF();
    int levels = in.readUnsignedShort();
    List<String> name = new ArrayList<>(levels);
    for (int i = 0; i < levels; i++) {
      name.add(in.readUTF());
    }
    return new WalSegmentHeader(tableUuid, name, in.readInt(), in.readUTF(), in.readLong(),
        in.readLong(), in.readLong(), in.readLong(), in.readLong());
  }

  private static List<WalBatch> readBody(DataInputStream in, int batchCount) throws IOException {
    List<WalBatch> batches = new ArrayList<>(batchCount);
    for (int i = 0; i < batchCount; i++) {
      long hlc = in.readLong();
      int rows = in.readInt();
      String key = in.readBoolean() ? in.readUTF() : null;
      int length = in.readInt();
      if (length < 0 || length > in.available()) {
        throw new CorruptSegmentException("Cannot read WAL segment: batch " + i + " overruns body");
      }
      batches.add(new WalBatch(hlc, rows, key, in.readNBytes(length)));
    }
    if (in.available() > 0) {
      throw new CorruptSegmentException("Cannot read WAL segment: body has bytes after "
          + batchCount + " batches");
    }
    return batches;
  }

  static int crc(byte[] bytes) {
    return crc(bytes, 0, bytes.length);
  }

  private static int crc(byte[] bytes, int at, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, at, length);
    return (int) crc.getValue();
  }
}
