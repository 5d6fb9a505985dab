package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scan resistance: once a tier is full, blocks seen once do not displace blocks seen again. */
class AdmissionTest {
  private static final int BLOCK = 1024;
  @TempDir Path dir;

  private final AtomicInteger loads = new AtomicInteger();

  /** Reads a block and tells whether a tier held it. */
  private boolean read(BlockCache cache, String key, long index) {
    return TestingBlocks.fromCache(cache.get(new BlockId("b", key, "\"e\"", BLOCK, index), id -> {
      loads.incrementAndGet();
      return CompletableFuture.completedFuture(new byte[BLOCK]);
    }).join());
  }

  @Test
  void aScanDoesNotFlushTheWorkingSetFromDram() {
    try (BlockCache cache = new BlockCache(8L * BLOCK)) {
      scanResistance(cache);
    }
  }

  private void scanResistance(BlockCache cache) {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 6; i++) {
        read(cache, "hot", i);
      }
    }
    assertThat(cache.dramAdmissionRejects()).isZero();
    for (int i = 0; i < 100; i++) {
      read(cache, "scan", i);
    }
    assertThat(cache.dramAdmissionRejects()).isEqualTo(98); // two fitted without pressure
    int before = loads.get();
    for (int i = 0; i < 6; i++) {
      assertThat(read(cache, "hot", i)).isTrue();
    }
    assertThat(loads.get()).isEqualTo(before);
    assertThat(cache.dramBytes()).isLessThanOrEqualTo(8L * BLOCK);
  }

  /** Reads a block whose loader answers with another node's copy. */
  private boolean readReplica(BlockCache cache, String key, long index) {
    BlockLoader peer = new BlockLoader() {
      @Override
      public CompletableFuture<byte[]> load(BlockId id) {
        throw new AssertionError("the cache must ask for the fill, which says where it came from");
      }

      @Override
      public CompletableFuture<BlockFill> fill(BlockId id) {
        loads.incrementAndGet();
        return CompletableFuture.completedFuture(BlockFill.replica(new byte[BLOCK]));
      }
    };
    return TestingBlocks.fromCache(cache.get(new BlockId("b", key, "\"e\"", BLOCK, index), peer).join());
  }

  /**
   * Replicas fill free room but never displace a block, however often they are read: the node's
   * own blocks stay, and a replica read again while the tier is full goes back to its owner.
   */
  @Test
  void replicasTakeOnlyFreeRoom() {
    try (BlockCache cache = new BlockCache(4L * BLOCK)) {
      for (int i = 0; i < 2; i++) {
        readReplica(cache, "replica", i);
      }
      assertThat(readReplica(cache, "replica", 0)).isTrue(); // admitted into free room
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 2; i++) {
          read(cache, "own", i);
        }
      }
      assertThat(cache.dramBytes()).isEqualTo(4L * BLOCK);
      for (int round = 0; round < 5; round++) {
        assertThat(readReplica(cache, "replica", 7)).isFalse();
      }
      for (int i = 0; i < 2; i++) {
        assertThat(read(cache, "own", i)).isTrue();
      }
      assertThat(cache.dramAdmissionRejects()).isEqualTo(5);
    }
  }

  @Test
  void aBlockReadTwiceIsAdmittedUnderPressure() {
    try (BlockCache cache = new BlockCache(4L * BLOCK)) {
      secondTouch(cache);
    }
  }

  private void secondTouch(BlockCache cache) {
    for (int i = 0; i < 4; i++) {
      read(cache, "fill", i);
    }
    assertThat(read(cache, "new", 0)).isFalse();
    assertThat(cache.dramAdmissionRejects()).isEqualTo(1);
    assertThat(read(cache, "new", 0)).isFalse(); // second touch: admitted now
    assertThat(read(cache, "new", 0)).isTrue();
    assertThat(cache.dramEvictions()).isEqualTo(1);
  }

  @Test
  void nvmeTakesSecondTouchesOnlyOnceFull() throws IOException {
    // DRAM holds one block; NVMe holds about four.
    try (BlockCache cache = new BlockCache(BLOCK, dir, 4L * (BLOCK + 100), 1, BLOCK)) {
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 4; i++) {
          read(cache, "hot", i);
        }
        cache.flush();
      }
      assertThat(cache.nvmeEntries()).isEqualTo(4);
      for (int i = 0; i < 50; i++) {
        read(cache, "scan", i);
        cache.flush();
      }
      assertThat(cache.nvmeAdmissionRejects()).isEqualTo(50);
      int before = loads.get();
      for (int i = 0; i < 4; i++) {
        assertThat(read(cache, "hot", i)).isTrue();
      }
      assertThat(loads.get()).isEqualTo(before);
      assertThat(cache.nvmeHits()).isPositive();
    }
  }
}
