package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeatFileTest {
  private static final HeatFile.Saved SAVED = new HeatFile.Saved(1_700_000_000_000L, List.of(
      heat("db.t", "p=1", "a", 2.5), heat("db.u", "", "*", 0.5), heat("db.t", "p=1", "b", 1.0)));

  /** Format version 1, written out by hand; the CRC-32C was computed independently. */
  private static final String GOLDEN = String.join("",
      "5648544c", "00000001", "0000018bcfe56800", "00000002",       // magic, version, saved at, tables
      "00000004", "64622e74", "00000002",                           // "db.t", 2 entries
      "00000003", "703d31", "00000001", "61", "4004000000000000",   // "p=1" "a" 2.5
      "00000003", "703d31", "00000001", "62", "3ff0000000000000",   // "p=1" "b" 1.0
      "00000004", "64622e75", "00000001",                           // "db.u", 1 entry
      "00000000", "00000001", "2a", "3fe0000000000000",             // "" "*" 0.5
      "44b7e5cc");                                                  // CRC-32C

  private static HeatLedger.Heat heat(String table, String partition, String column, double heat) {
    return new HeatLedger.Heat(new HeatCoordinates(table, partition, column), heat);
  }

  @Test
  void encodesTheVersionOneLayoutGroupedByTable() {
    assertThat(HexFormat.of().formatHex(HeatFile.encode(SAVED))).isEqualTo(GOLDEN);
  }

  @Test
  void decodesTheVersionOneLayout() {
    HeatFile.Saved decoded = HeatFile.decode(HexFormat.of().parseHex(GOLDEN));
    assertThat(decoded.savedAtMillis()).isEqualTo(1_700_000_000_000L);
    assertThat(decoded.entries()).containsExactly(
        heat("db.t", "p=1", "a", 2.5), heat("db.t", "p=1", "b", 1.0), heat("db.u", "", "*", 0.5));
  }

  @Test
  void roundTripsNonAsciiNamesAndAnEmptyLedger() {
    HeatFile.Saved saved = new HeatFile.Saved(7, List.of(heat("ns.tablé", "région=北", "ä.b", 0.125)));
    assertThat(HeatFile.decode(HeatFile.encode(saved))).isEqualTo(saved);
    HeatFile.Saved empty = new HeatFile.Saved(0, List.of());
    assertThat(HeatFile.decode(HeatFile.encode(empty))).isEqualTo(empty);
  }

  @Test
  void refusesAFlippedBit() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    bytes[40] ^= 0x01;
    assertThatThrownBy(() -> HeatFile.decode(bytes)).hasMessage("Cannot read heat file: checksum mismatch");
  }

  @Test
  void refusesAnotherFormatVersionOrMagic() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    bytes[7] = 2;
    assertThatThrownBy(() -> HeatFile.decode(bytes))
        .hasMessage("Cannot read heat file: unsupported format version 2 (expected 1)");
    byte[] json = "{\"format-version\":1,\"feed\":\"x\"}".getBytes();
    assertThatThrownBy(() -> HeatFile.decode(json))
        .hasMessage("Cannot read heat file: not a heat file (magic 7b22666f)");
  }

  @Test
  void refusesTruncatedFilesAndTrailingBytes() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    assertThatThrownBy(() -> HeatFile.decode(Arrays.copyOf(bytes, 10)))
        .hasMessage("Cannot read heat file: too short (10 bytes)");
    assertThatThrownBy(() -> HeatFile.decode(withCrc(Arrays.copyOf(bytes, bytes.length - 12))))
        .hasMessageStartingWith("Cannot read heat file: ");
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> HeatFile.decode(withCrc(longer)))
        .hasMessage("Cannot read heat file: 1 bytes after the last table");
  }

  @Test
  void refusesACountPastTheEndAndANegativeHeat() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    ByteBuffer.wrap(bytes).putInt(16, Integer.MAX_VALUE);
    assertThatThrownBy(() -> HeatFile.decode(withCrc(bytes)))
        .hasMessage("Cannot read heat file: table count 2147483647 past the end");
    byte[] negative = HeatFile.encode(new HeatFile.Saved(0, List.of(heat("db.t", "", "a", 1.0))));
    ByteBuffer.wrap(negative).putDouble(negative.length - 12, -1.0);
    assertThatThrownBy(() -> HeatFile.decode(withCrc(negative)))
        .hasMessageStartingWith("Cannot read heat file: heat -1.0 of ");
  }

  /** The bytes with their last four replaced by the CRC-32C of the rest (a well-formed checksum). */
  private static byte[] withCrc(byte[] bytes) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
    return bytes;
  }
}
