package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** The NVMe tier across restarts of a node, seen from an S3 client. */
class NvmeRestartTest {
  private static final int MIB = CacheNode.MIB;
  private static final String KEY = "db/t/data/file-1.parquet";
  @TempDir Path dir;
  private TestingCountingOrigin counting;

  private TestingCacheNode start() {
    return new TestingCacheNode(dir.resolve("origin"), o -> counting = new TestingCountingOrigin(o),
        b -> b.blockSize(MIB).dramCapacityBytes(MIB).metadataTtl(Duration.ofMinutes(5))
            .nvmeDirectory(dir.resolve("nvme")).nvmeCapacityBytes(64L * MIB));
  }

  private List<Path> blockFiles() throws IOException {
    try (Stream<Path> s = Files.walk(dir.resolve("nvme"))) {
      return s.filter(p -> p.toString().endsWith(".blk")).sorted().toList();
    }
  }

  @Test
  void aRestartedNodeServesItsBlocksAndRefetchesACorruptedOne() throws IOException {
    byte[] content = S3ObjectOperationsTest.randomBytes(3 * MIB + 5, 11);
    try (TestingCacheNode t = start()) {
      t.s3.putObject(b -> b.bucket(BUCKET).key(KEY), RequestBody.fromBytes(content));
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(content);
      t.node.flush();
      CacheStats stats = t.node.stats();
      assertThat(stats.nvme().fills()).isEqualTo(4);
      assertThat(stats.nvme().bytes()).isLessThanOrEqualTo(64L * MIB).isGreaterThan(content.length);
      assertThat(blockFiles()).hasSize(4);
    }

    try (TestingCacheNode t = start()) {
      assertThat(t.node.stats().nvmeRecoveredBlocks()).isEqualTo(4);
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(content);
      assertThat(counting.rangeReads.get()).isZero();
      assertThat(t.node.stats().nvme().hits()).isEqualTo(4);
    }

    // Damage the data of one block file: it is dropped on read and fetched again.
    Path victim = blockFiles().get(0);
    try (RandomAccessFile raf = new RandomAccessFile(victim.toFile(), "rw")) {
      raf.seek(raf.length() - 1);
      int b = raf.read();
      raf.seek(raf.length() - 1);
      raf.write(b ^ 0x01);
    }
    try (TestingCacheNode t = start()) {
      assertThat(t.node.stats().nvmeRecoveredBlocks()).isEqualTo(4);
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(content);
      CacheStats stats = t.node.stats();
      assertThat(stats.nvmeChecksumFailures()).isEqualTo(1);
      assertThat(counting.rangeReads.get()).isEqualTo(1);
      assertThat(stats.nvme().hits()).isEqualTo(3);
      t.node.flush();
      assertThat(t.node.stats().nvme().fills()).isEqualTo(1); // written back
    }

    try (TestingCacheNode t = start()) {
      assertThat(t.node.stats().nvmeRecoveredBlocks()).isEqualTo(4);
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(content);
      assertThat(counting.rangeReads.get()).isZero();
      assertThat(t.node.stats().nvmeChecksumFailures()).isZero();
    }
  }
}
