package io.verglas.cache.awareness;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The binary form of a saved heat ledger, versioned and checksummed (big-endian):
 * <pre>
 * magic          4 bytes  "VHTL"
 * format version int32    1
 * saved at       int64    wall-clock epoch milliseconds the heats were decayed to
 * tables         int32    then per table:
 *   name         string
 *   entries      int32    then per entry: partition string, column string, heat float64
 * crc            int32    CRC-32C of every byte before it
 * </pre>
 * A string is an int32 byte length and that many bytes of UTF-8. Entries are grouped by table,
 * tables in the order of their hottest entry. A file of another magic or format version, with a
 * wrong checksum, a count or length past its end, a negative or non-finite heat or trailing bytes
 * is refused rather than misread.
 */
final class HeatFile {
  static final int FORMAT_VERSION = 1;
  private static final byte[] MAGIC = {'V', 'H', 'T', 'L'};
  private static final int HEADER_BYTES = MAGIC.length + Integer.BYTES + Long.BYTES + Integer.BYTES;

  /** Heats as they were at {@code savedAtMillis} (wall clock). */
  record Saved(long savedAtMillis, List<HeatLedger.Heat> entries) {
    Saved {
      entries = List.copyOf(entries);
    }
  }

  private HeatFile() {}

  static byte[] encode(Saved saved) {
    Map<String, List<HeatLedger.Heat>> byTable = new LinkedHashMap<>();
    for (HeatLedger.Heat heat : saved.entries()) {
      byTable.computeIfAbsent(heat.at().table(), t -> new ArrayList<>()).add(heat);
    }
    List<byte[]> strings = new ArrayList<>();
    int size = HEADER_BYTES + Integer.BYTES;
    for (Map.Entry<String, List<HeatLedger.Heat>> table : byTable.entrySet()) {
      size += add(strings, table.getKey()) + Integer.BYTES;
      for (HeatLedger.Heat heat : table.getValue()) {
        size += add(strings, heat.at().partition()) + add(strings, heat.at().column()) + Double.BYTES;
      }
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.put(MAGIC).putInt(FORMAT_VERSION).putLong(saved.savedAtMillis()).putInt(byTable.size());
    int next = 0;
    for (Map.Entry<String, List<HeatLedger.Heat>> table : byTable.entrySet()) {
      putString(out, strings.get(next++)).putInt(table.getValue().size());
      for (HeatLedger.Heat heat : table.getValue()) {
        putString(out, strings.get(next++));
        putString(out, strings.get(next++)).putDouble(heat.heat());
      }
    }
    out.putInt(crc(out.array(), out.position()));
    return out.array();
  }

  static Saved decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length < HEADER_BYTES + Integer.BYTES) {
      throw invalid("too short (" + bytes.length + " bytes)");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    byte[] magic = new byte[MAGIC.length];
    in.get(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw invalid("not a heat file (magic " + HexFormat.of().formatHex(magic) + ")");
    }
    int version = in.getInt();
    if (version != FORMAT_VERSION) {
      throw invalid("unsupported format version " + version + " (expected " + FORMAT_VERSION + ")");
    }
    int stored = ByteBuffer.wrap(bytes, bytes.length - Integer.BYTES, Integer.BYTES).getInt();
    if (stored != crc(bytes, bytes.length - Integer.BYTES)) {
      throw invalid("checksum mismatch");
    }
    ByteBuffer body = ByteBuffer.wrap(bytes, 0, bytes.length - Integer.BYTES).position(in.position());
    try {
      return entries(body);
    } catch (BufferUnderflowException e) {
      throw invalid("truncated");
    }
  }

  private static Saved entries(ByteBuffer in) {
    long savedAt = in.getLong();
    int tables = count(in, "table count");
    List<HeatLedger.Heat> entries = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      String table = string(in);
      int n = count(in, "entry count of " + table);
      for (int e = 0; e < n; e++) {
        HeatCoordinates at = new HeatCoordinates(table, string(in), string(in));
        double heat = in.getDouble();
        if (!(heat >= 0) || Double.isInfinite(heat)) {
          throw invalid("heat " + heat + " of " + at);
        }
        entries.add(new HeatLedger.Heat(at, heat));
      }
    }
    if (in.hasRemaining()) {
      throw invalid(in.remaining() + " bytes after the last table");
    }
    return new Saved(savedAt, entries);
  }

  private static int count(ByteBuffer in, String what) {
    int n = in.getInt();
    if (n < 0 || n > in.remaining()) {
      throw invalid(what + " " + n + " past the end");
    }
    return n;
  }

  private static String string(ByteBuffer in) {
    int length = count(in, "string length");
    byte[] utf8 = new byte[length];
    in.get(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }

  private static int add(List<byte[]> strings, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    strings.add(utf8);
    return Integer.BYTES + utf8.length;
  }

  private static ByteBuffer putString(ByteBuffer out, byte[] utf8) {
    return out.putInt(utf8.length).put(utf8);
  }

  private static int crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }

  private static IllegalArgumentException invalid(String reason) {
    return new IllegalArgumentException("Cannot read heat file: " + reason);
  }
}
