package io.verglas.cache.writeback.peer;

import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalCodec;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The write-back operations carried by the peer protocol's {@code WRITE_BACK} frames (the frame's
 * body; the cluster's frame adds version, request id and the HMAC tag).
 *
 * <pre>
 * request: op:u8  fields
 *   CREATE (1)  session:i64  header (a fragment file's header bytes, {@code FragmentFormat})
 *   CELL (2)    session:i64  cell bytes (the next stripe's cell)
 *   COMMIT (3)  session:i64              answered once file and directory are fsynced
 *   ABORT (4)   session:i64              the temporary file and its reservation are dropped
 *   READ (5)    index:u8  stripe:i64  bucket:str  key:str  writeId:str
 *               answer: the header bytes (stripe -1), else the cell and its CRC32C (u32)
 *   RELEASE (6) index:u8  bucket:str  key:str  writeId:str     answer: released:u8
 *   RECORD (7)  coordinator:str  journal record ({@code JournalCodec} payload)  answered once fsynced
 *   RECORDS (8) coordinator:str  answer: (length:u32  journal record)* of its pending records here
 *   PENDING (9) requester:str  answer: (length:u32  journal record)* of this node's own
 *               journal's pending records (failed while this node, recovering its lost
 *               journal, has not asked the requester for its copies yet)
 * str: length:u16, UTF-8 bytes; integers big-endian
 * </pre>
 *
 * Sessions are scoped to the peer connection: a connection that closes abandons its sessions.
 * The requests of one session are applied in the order they arrived. A failed request is
 * answered with the failure's class and message.
 */
final class FragmentProtocol {
  static final byte CREATE = 1;
  static final byte CELL = 2;
  static final byte COMMIT = 3;
  static final byte ABORT = 4;
  static final byte READ = 5;
  static final byte RELEASE = 6;
  static final byte RECORD = 7;
  static final byte RECORDS = 8;
  static final byte PENDING = 9;
  /** The stripe a READ asks for to get the fragment's header. */
  static final long HEADER = -1;

  private FragmentProtocol() {}

  static byte[] session(byte op, long session, byte[] body, int offset, int length) {
    return ByteBuffer.allocate(9 + length).put(op).putLong(session).put(body, offset, length).array();
  }

  static byte[] fragment(byte op, ObjectIdentity id, int index, long stripe) {
    byte[][] names = {utf8(id.bucket()), utf8(id.key()), utf8(id.writeId())};
    ByteBuffer out = ByteBuffer.allocate(10 + 6 + names[0].length + names[1].length + names[2].length);
    out.put(op).put((byte) index).putLong(stripe);
    for (byte[] name : names) {
      out.putShort((short) name.length).put(name);
    }
    return out.array();
  }

  static byte[] coordinator(byte op, String coordinator, byte[] record) {
    byte[] name = utf8(coordinator);
    return ByteBuffer.allocate(3 + name.length + record.length).put(op).putShort((short) name.length).put(name)
        .put(record).array();
  }

  /** Records as RECORDS and PENDING answer them. */
  static byte[] records(List<? extends JournalRecord> records) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (JournalRecord record : records) {
      byte[] payload = JournalCodec.payload(record);
      out.writeBytes(ByteBuffer.allocate(4).putInt(payload.length).array());
      out.writeBytes(payload);
    }
    return out.toByteArray();
  }

  /** The pending records of a RECORDS or PENDING answer. */
  static List<JournalRecord.Pending> parseRecords(byte[] answer) {
    List<JournalRecord.Pending> records = new ArrayList<>();
    ByteBuffer in = ByteBuffer.wrap(answer);
    while (in.hasRemaining()) {
      byte[] payload = new byte[in.getInt()];
      in.get(payload);
      if (JournalCodec.parse(payload) instanceof JournalRecord.Pending pending) {
        records.add(pending);
      }
    }
    return records;
  }

  static ObjectIdentity identity(ByteBuffer in) {
    return new ObjectIdentity(string(in), string(in), string(in));
  }

  static String string(ByteBuffer in) {
    byte[] bytes = new byte[in.getShort() & 0xFFFF];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static byte[] rest(ByteBuffer in) {
    byte[] bytes = new byte[in.remaining()];
    in.get(bytes);
    return bytes;
  }

  private static byte[] utf8(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("Cannot send a name of " + bytes.length + " bytes to a peer");
    }
    return bytes;
  }
}
