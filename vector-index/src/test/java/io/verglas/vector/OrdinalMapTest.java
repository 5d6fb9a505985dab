package io.verglas.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrdinalMapTest {
  /** Version 1 of rows (a.parquet, 5), (b.parquet, 0), (a.parquet, 7): frozen bytes. */
  private static final String GOLDEN_V1 = "00000001" + "00000002"
      + "00000009" + HexFormat.of().formatHex("a.parquet".getBytes())
      + "00000009" + HexFormat.of().formatHex("b.parquet".getBytes())
      + "00000003"
      + "00000000" + "0000000000000005"
      + "00000001" + "0000000000000000"
      + "00000000" + "0000000000000007";

  private static final List<RowRef> ROWS = List.of(new RowRef("a.parquet", 5),
      new RowRef("b.parquet", 0), new RowRef("a.parquet", 7));

  @Test
  void serializesToTheFrozenVersion1Bytes() {
    ByteBuffer bytes = OrdinalMap.of(ROWS).serialize();
    byte[] array = new byte[bytes.remaining()];
    bytes.get(array);
    assertThat(HexFormat.of().formatHex(array)).isEqualTo(GOLDEN_V1);
  }

  @Test
  void readsVersion1Bytes() {
    OrdinalMap map = OrdinalMap.deserialize(ByteBuffer.wrap(HexFormat.of().parseHex(GOLDEN_V1)));
    assertThat(map.size()).isEqualTo(3);
    assertThat(List.of(map.row(0), map.row(1), map.row(2))).isEqualTo(ROWS);
  }

  @Test
  void refusesUnknownVersionsAndBadFileNumbers() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN_V1);
    bytes[3] = 2;
    assertThatThrownBy(() -> OrdinalMap.deserialize(ByteBuffer.wrap(bytes)))
        .hasMessage("Cannot read ordinal map: unknown version 2");
    byte[] badFile = HexFormat.of().parseHex(GOLDEN_V1);
    badFile[badFile.length - 9] = 9;
    assertThatThrownBy(() -> OrdinalMap.deserialize(ByteBuffer.wrap(badFile)))
        .hasMessage("Cannot read ordinal map: ordinal 2 names file 9 of 2");
  }
}
