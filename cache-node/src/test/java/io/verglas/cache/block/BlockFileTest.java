package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NVMe block file format, pinned by a golden file per version. */
class BlockFileTest {
  static final BlockId GOLDEN_ID =
      new BlockId("warehouse", "db/t/data/ünï-0001.parquet", "\"0123456789abcdef0123456789abcdef\"", 1 << 20, 3);
  static final byte[] GOLDEN_DATA = "block data of version 1\n".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  static byte[] golden() throws IOException {
    try (InputStream in = BlockFileTest.class.getResourceAsStream("block-file-v1.bin")) {
      assertThat(in).as("golden file block-file-v1.bin").isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void writesTheGoldenBytesOfVersion1() throws IOException {
    byte[] header = BlockFile.encodeHeader(GOLDEN_ID, GOLDEN_DATA);
    byte[] file = concat(header, GOLDEN_DATA);
    assertThat(file).isEqualTo(golden());
    assertThat(BlockFile.fileLength(GOLDEN_ID, GOLDEN_DATA.length)).isEqualTo(file.length);
  }

  @Test
  void readsTheGoldenFileOfVersion1() throws IOException {
    Path file = Files.write(dir.resolve("g.blk"), golden());
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      BlockFile.Header header = BlockFile.readHeader(ch);
      assertThat(header.id()).isEqualTo(GOLDEN_ID);
      assertThat(header.dataLength()).isEqualTo(GOLDEN_DATA.length);
      assertThat(BlockFile.readData(ch, header)).isEqualTo(GOLDEN_DATA);
    }
  }

  @Test
  void everyDamagedByteIsDetected() throws IOException {
    byte[] good = golden();
    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 0x40;
      Path file = Files.write(dir.resolve("bad-" + i + ".blk"), bad);
      int at = i;
      assertThatThrownBy(() -> {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
          BlockFile.Header header = BlockFile.readHeader(ch);
          BlockFile.readData(ch, header);
        }
      }).as("flipped byte %d", at).isInstanceOf(BlockFile.CorruptBlockException.class);
    }
  }

  @Test
  void truncatedAndUnknownVersionsAreRefused() throws IOException {
    byte[] good = golden();
    Path truncated = Files.write(dir.resolve("t.blk"), Arrays.copyOf(good, good.length - 1));
    assertThatThrownBy(() -> {
      try (FileChannel ch = FileChannel.open(truncated, StandardOpenOption.READ)) {
        BlockFile.readData(ch, BlockFile.readHeader(ch));
      }
    }).isInstanceOf(BlockFile.CorruptBlockException.class).hasMessageContaining("length");
    byte[] v2 = good.clone();
    v2[4] = 2;
    Path future = Files.write(dir.resolve("v2.blk"), v2);
    assertThatThrownBy(() -> {
      try (FileChannel ch = FileChannel.open(future, StandardOpenOption.READ)) {
        BlockFile.readHeader(ch);
      }
    }).isInstanceOf(BlockFile.CorruptBlockException.class).hasMessageContaining("unknown version 2");
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Regenerates the golden file; run by hand only when a new version is added. */
  public static void main(String[] args) throws IOException {
    Files.write(Path.of(args[0]), concat(BlockFile.encodeHeader(GOLDEN_ID, GOLDEN_DATA), GOLDEN_DATA));
  }
}
