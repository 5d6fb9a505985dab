package io.verglas.cache.writeback.fragment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.TestingGoldenFiles;
import io.verglas.cache.writeback.code.Geometry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fragment file format of version 1: golden header bytes, cell trailers, refusals. */
class FragmentFormatTest {
  static final FragmentHeader GOLDEN = new FragmentHeader(
      new ObjectIdentity("warehouse", "db/t/data/ünï-0001.parquet", "node-a-00000000000000000042"),
      new Geometry(4, 2, 1 << 20), 5, 8_388_613L);

  @TempDir Path dir;

  static byte[] golden() throws IOException {
    return TestingGoldenFiles.hex(FragmentFormatTest.class, "fragment-header-v1.hex");
  }

  @Test
  void aHeaderOfVersionOneHasTheGoldenBytesAndReadsBack() throws IOException {
    assertThat(FragmentFormat.encodeHeader(GOLDEN)).isEqualTo(golden());
    assertThat(FragmentFormat.decodeHeader(golden())).isEqualTo(GOLDEN);
  }

  @Test
  void everyDamagedHeaderByteIsDetected() throws IOException {
    byte[] good = golden();
    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 0x40;
      assertThatThrownBy(() -> FragmentFormat.decodeHeader(bad)).as("flipped byte %d", i)
          .isInstanceOf(CorruptFragmentException.class);
    }
  }

  @Test
  void anUnknownVersionIsRefused() throws IOException {
    byte[] v2 = golden();
    v2[4] = 2;
    assertThatThrownBy(() -> FragmentFormat.decodeHeader(v2)).hasMessage("Cannot read fragment: unknown version 2");
  }

  @Test
  void eachCellIsFollowedByItsCrc32cAndACorruptCellIsDetected() throws IOException {
    FragmentHeader header = new FragmentHeader(new ObjectIdentity("b", "k", "w1"), new Geometry(2, 1, 4), 0, 11);
    byte[][] cells = {{1, 2, 3, 4}, {5, 6}};
    Path file = write(header, cells);
    byte[] bytes = Files.readAllBytes(file);
    int h = bytes.length - 4 - 4 - 2 - 4;
    assertThat(Files.size(file)).isEqualTo(header.fileLength());
    assertThat(Arrays.copyOfRange(bytes, h, h + 4)).isEqualTo(cells[0]);
    assertThat(ByteBuffer.wrap(bytes, h + 4, 4).getInt()).isEqualTo(crc(cells[0]));
    assertThat(ByteBuffer.wrap(bytes, h + 10, 4).getInt()).isEqualTo(crc(cells[1]));
    try (FragmentReader reader = FragmentReader.open(file)) {
      assertThat(reader.header()).isEqualTo(header);
      ByteBuffer second = ByteBuffer.allocate(2);
      reader.readCell(1, second);
      assertThat(second.array()).isEqualTo(cells[1]);
    }
    bytes[h + 1] ^= 1;
    Files.write(file, bytes);
    try (FragmentReader reader = FragmentReader.open(file)) {
      assertThatThrownBy(() -> reader.readCell(0, ByteBuffer.allocate(4))).isInstanceOf(CorruptFragmentException.class)
          .hasMessageContaining("Cannot read cell 0 of fragment 0").hasMessageContaining("checksum mismatch");
    }
  }

  @Test
  void aTruncatedFileOrAWrongCellIsRefused() throws IOException {
    FragmentHeader header = new FragmentHeader(new ObjectIdentity("b", "k", "w1"), new Geometry(2, 1, 4), 2, 11);
    Path file = write(header, new byte[][] {{1, 2, 3, 4}, {5, 6}});
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, bytes.length - 1));
    assertThatThrownBy(() -> FragmentReader.open(file)).isInstanceOf(CorruptFragmentException.class)
        .hasMessageContaining("expected " + bytes.length);
    try (FileChannel ch = FileChannel.open(dir.resolve("x"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FragmentWriter writer = new FragmentWriter(ch, header);
      assertThatThrownBy(() -> writer.writeCell(ByteBuffer.allocate(3)))
          .hasMessage("Cannot write cell 0 of fragment 2: 3 bytes, expected 4");
      assertThatThrownBy(writer::finish).hasMessage("Cannot finish fragment 2: 0 of 2 cells written");
    }
  }

  private Path write(FragmentHeader header, byte[][] cells) throws IOException {
    Path file = dir.resolve("f-" + header.index());
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FragmentWriter writer = new FragmentWriter(ch, header);
      for (byte[] cell : cells) {
        writer.writeCell(ByteBuffer.wrap(cell));
      }
      writer.finish();
    }
    return file;
  }

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }
}
