package io.verglas.cache.writeback.journal;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The byte format of a write journal (version 1).
 *
 * <pre>
 * file:    magic "VGWJ"  version:u8=1  reserved:3 bytes (0)  record*
 * record:  length:u32  crc:u32 (CRC32C of the payload)  payload (length bytes)
 * payload: type:u8  bucket:str  key:str  writeId:str  fields
 *   STAGED (1) fields: bodyLength:i64  k:u8  m:u8  cell:i32  stagedAtMillis:i64
 *                      metadataCount:u16 (name:str value:str)*  placementCount:u8 (fragment:u8 node:str)*
 *   CLEAN (2)  fields: none
 *   DELETED (3) fields: stagedAtMillis:i64  [metadataCount:u16 (name:str value:str)*]
 *                      (the metadata only when there is some: deletes journaled before it are
 *                      read as deletes without)
 * str:     length:u16, UTF-8 bytes
 * </pre>
 *
 * Integers are big-endian. Unknown versions and record types are refused, never skipped.
 */
public final class JournalCodec {
  static final byte[] MAGIC = {'V', 'G', 'W', 'J'};
  static final int VERSION = 1;
  static final int FILE_HEADER = 8;
  static final int RECORD_HEADER = 8;
  static final int MAX_PAYLOAD = 1 << 24;
  static final byte STAGED = 1;
  static final byte CLEAN = 2;
  static final byte DELETED = 3;

  private JournalCodec() {}

  static byte[] fileHeader() {
    return new byte[] {MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], VERSION, 0, 0, 0};
  }

  /** The record framed: length, CRC32C, payload. */
  static byte[] frame(JournalRecord record) {
    byte[] payload = payload(record);
    return ByteBuffer.allocate(RECORD_HEADER + payload.length).putInt(payload.length).putInt(crc(payload))
        .put(payload).array();
  }

  /** The record's bytes, as a journal or a peer carries them (unframed). */
  public static byte[] payload(JournalRecord record) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(record instanceof JournalRecord.Staged ? STAGED
          : record instanceof JournalRecord.Deleted ? DELETED : CLEAN);
      ObjectIdentity id = record.identity();
      string(out, id.bucket());
      string(out, id.key());
      string(out, id.writeId());
      if (record instanceof JournalRecord.Staged staged) {
        staged(out, staged);
      } else if (record instanceof JournalRecord.Deleted deleted) {
        out.writeLong(deleted.stagedAtMillis());
        if (!deleted.metadata().isEmpty()) {
          metadata(out, deleted);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void staged(DataOutputStream out, JournalRecord.Staged s) throws IOException {
    Geometry g = s.geometry();
    out.writeLong(s.bodyLength());
    out.writeByte(g.dataFragments());
    out.writeByte(g.parityFragments());
    out.writeInt(g.cellBytes());
    out.writeLong(s.stagedAtMillis());
    metadata(out, s);
    out.writeByte(s.placements().size());
    for (Placement p : s.placements()) {
      out.writeByte(p.fragment());
      string(out, p.nodeId());
    }
  }

  private static void metadata(DataOutputStream out, JournalRecord.Pending p) throws IOException {
    Map<String, String> metadata = new TreeMap<>(p.metadata());
    if (metadata.size() > 0xFFFF) {
      throw new IllegalArgumentException("Cannot journal " + p.identity() + ": " + metadata.size() + " metadata entries");
    }
    out.writeShort(metadata.size());
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      string(out, e.getKey());
      string(out, e.getValue());
    }
  }

  private static Map<String, String> metadata(ByteBuffer in) {
    Map<String, String> metadata = new LinkedHashMap<>();
    for (int n = in.getShort() & 0xFFFF; n > 0; n--) {
      metadata.put(string(in), string(in));
    }
    return metadata;
  }

  /**
   * Parses a payload whose CRC was checked.
   *
   * @throws IllegalArgumentException if it is not a record of this version
   */
  public static JournalRecord parse(byte[] payload) {
    ByteBuffer in = ByteBuffer.wrap(payload);
    try {
      byte type = in.get();
      ObjectIdentity id = new ObjectIdentity(string(in), string(in), string(in));
      JournalRecord record = switch (type) {
        case STAGED -> staged(in, id);
        case CLEAN -> new JournalRecord.Clean(id);
        case DELETED -> new JournalRecord.Deleted(id, in.getLong(), in.hasRemaining() ? metadata(in) : Map.of());
        default -> throw new IllegalArgumentException("unknown record type " + type);
      };
      if (in.hasRemaining()) {
        throw new IllegalArgumentException("trailing bytes");
      }
      return record;
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("truncated payload", e);
    }
  }

  private static JournalRecord.Staged staged(ByteBuffer in, ObjectIdentity id) {
    long bodyLength = in.getLong();
    int k = in.get() & 0xFF;
    int m = in.get() & 0xFF;
    Geometry geometry = new Geometry(k, m, in.getInt());
    long stagedAt = in.getLong();
    Map<String, String> metadata = metadata(in);
    List<Placement> placements = new ArrayList<>();
    for (int n = in.get() & 0xFF; n > 0; n--) {
      placements.add(new Placement(in.get() & 0xFF, string(in)));
    }
    return new JournalRecord.Staged(id, bodyLength, metadata, geometry, placements, stagedAt);
  }

  static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  private static void string(DataOutputStream out, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("Cannot journal a string of " + bytes.length + " bytes");
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }

  private static String string(ByteBuffer in) {
    int length = in.getShort() & 0xFFFF;
    byte[] bytes = new byte[length];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
