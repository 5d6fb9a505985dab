package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvmeTierTest {
  private static final int BLOCK = 4096;
  @TempDir Path dir;

  static BlockId id(String key, long index) {
    return new BlockId("b", key, "\"e1\"", BLOCK, index);
  }

  static byte[] data(int length, int seed) {
    byte[] d = new byte[length];
    new java.util.Random(seed).nextBytes(d);
    return d;
  }

  static List<Path> blockFiles(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  static long bytesOnDisk(Path root) throws IOException {
    long sum = 0;
    for (Path p : blockFiles(root)) {
      sum += Files.size(p);
    }
    return sum;
  }

  @Test
  void writtenBlocksAreReadBackAndSurviveAReopen() throws IOException {
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 2)) {
      tier.write(id("k", 0), data(BLOCK, 1));
      tier.write(id("k", 1), data(100, 2));
      tier.flush();
      assertThat(tier.read(id("k", 0)).join()).isEqualTo(data(BLOCK, 1));
      assertThat(tier.read(id("k", 2)).join()).isNull();
      assertThat(tier.entries()).isEqualTo(2);
      assertThat(tier.diskBytes()).isEqualTo(bytesOnDisk(dir));
    }
    try (NvmeTier reopened = new NvmeTier(dir, 1 << 20, 2)) {
      assertThat(reopened.recovered()).isEqualTo(2);
      assertThat(reopened.read(id("k", 1)).join()).isEqualTo(data(100, 2));
      assertThat(reopened.read(id("k", 0)).join()).isEqualTo(data(BLOCK, 1));
      assertThat(reopened.diskBytes()).isEqualTo(bytesOnDisk(dir));
    }
  }

  @Test
  void aCorruptedBlockIsDroppedOnRead() throws IOException {
    Path file;
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 1)) {
      tier.write(id("k", 0), data(BLOCK, 1));
      tier.flush();
      file = tier.pathOf(id("k", 0));
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(raf.length() - 10);
      int b = raf.read();
      raf.seek(raf.length() - 10);
      raf.write(b ^ 0xFF);
    }
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 1)) {
      assertThat(tier.recovered()).isEqualTo(1); // the header is fine; the data is checked on read
      assertThat(tier.read(id("k", 0)).join()).isNull();
      assertThat(tier.checksumFailures()).isEqualTo(1);
      assertThat(tier.entries()).isZero();
      assertThat(Files.exists(file)).isFalse();
      assertThat(tier.diskBytes()).isZero();
    }
  }

  @Test
  void damagedMisplacedAndTempFilesAreDroppedAtRecovery() throws IOException {
    Path good;
    Path other;
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 1)) {
      tier.write(id("good", 0), data(BLOCK, 1));
      tier.write(id("other", 0), data(BLOCK, 2));
      tier.flush();
      good = tier.pathOf(id("good", 0));
      other = tier.pathOf(id("other", 0));
    }
    Path v1 = dir.resolve(NvmeTier.FORMAT_DIR);
    // A torn header, a file under another block's name, a leftover temp file.
    byte[] bytes = Files.readAllBytes(other);
    bytes[10] ^= 1;
    Files.write(other, bytes);
    Files.copy(good, Files.createDirectories(v1.resolve("00")).resolve("0123456789abcdef0123456789abcdef.blk"));
    Files.write(Files.createDirectories(v1.resolve("ab")).resolve("x.blk.123.tmp"), new byte[1000]);
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 1)) {
      assertThat(tier.recovered()).isEqualTo(1);
      assertThat(blockFiles(dir)).containsExactly(good);
      assertThat(tier.read(id("good", 0)).join()).isEqualTo(data(BLOCK, 1));
      assertThat(tier.diskBytes()).isEqualTo(bytesOnDisk(dir));
    }
  }

  @Test
  void aLowerCapacityAtRestartDeletesTheExcess() throws IOException {
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 1)) {
      for (int i = 0; i < 10; i++) {
        tier.write(id("k", i), data(BLOCK, i));
      }
      tier.flush();
      assertThat(tier.entries()).isEqualTo(10);
    }
    long small = 3L * (BLOCK + 200);
    try (NvmeTier tier = new NvmeTier(dir, small, 1)) {
      assertThat(tier.diskBytes()).isLessThanOrEqualTo(small).isEqualTo(bytesOnDisk(dir));
      assertThat(tier.entries()).isEqualTo(3);
    }
  }

  @Test
  void purgeRemovesMatchingBlocks() throws IOException {
    try (NvmeTier tier = new NvmeTier(dir, 1 << 20, 1)) {
      tier.write(id("a/1", 0), data(10, 1));
      tier.write(id("a/2", 0), data(10, 2));
      tier.write(id("b/1", 0), data(10, 3));
      tier.flush();
      assertThat(tier.purge(b -> b.key().startsWith("a/"))).isEqualTo(2);
      assertThat(tier.entries()).isEqualTo(1);
      assertThat(blockFiles(dir)).hasSize(1);
      assertThat(tier.diskBytes()).isEqualTo(bytesOnDisk(dir));
    }
  }
}
