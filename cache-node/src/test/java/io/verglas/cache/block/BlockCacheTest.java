package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class BlockCacheTest {
  private static final int BLOCK = 1024;

  private static BlockId id(String key, long index) {
    return new BlockId("b", key, "\"e\"", BLOCK, index);
  }

  /**
   * Random reads of random objects (sizes, block counts, read order) never leave the DRAM tier
   * above its capacity, and a fill is only ever counted once per load.
   */
  @Property(tries = 200)
  void dramWeightNeverExceedsCapacity(
      @ForAll @IntRange(min = BLOCK, max = 20 * BLOCK) int capacity,
      @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 10 * BLOCK) Integer> objectSizes,
      @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 10_000) Integer> reads) {
    BlockCache cache = new BlockCache(capacity); // closed (and checked) at the end
    AtomicInteger loads = new AtomicInteger();
    for (int r : reads) {
      int object = r % objectSizes.size();
      int size = objectSizes.get(object);
      int blocks = (size + BLOCK - 1) / BLOCK;
      BlockId id = id("o" + object, (r / objectSizes.size()) % blocks);
      int length = id.lengthIn(size);
      BlockRead read = cache.get(id, b -> {
        loads.incrementAndGet();
        return CompletableFuture.completedFuture(new byte[length]);
      }).join();
      assertThat(TestingBlocks.bytes(read)).hasSize(length);
      assertThat(cache.dramBytes()).isLessThanOrEqualTo(capacity);
    }
    assertThat(cache.fills()).isEqualTo(loads.get()).isEqualTo(cache.misses());
    assertThat(cache.hits() + cache.misses()).isEqualTo(reads.size());
    // Every reader released its reference: direct memory is exactly what the tier holds.
    assertThat(cache.directBytesInUse()).isEqualTo(cache.dramBytes());
    cache.close();
    assertThat(cache.directBytesInUse()).isZero();
  }

  @Test
  void concurrentMissesShareOneLoadAndFailuresAreNotCached() {
    try (BlockCache cache = new BlockCache(10 * BLOCK)) {
      sharedLoads(cache);
    }
  }

  private static void sharedLoads(BlockCache cache) {
    CompletableFuture<byte[]> origin = new CompletableFuture<>();
    AtomicInteger loads = new AtomicInteger();
    List<CompletableFuture<BlockRead>> reads = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      reads.add(cache.get(id("k", 0), b -> {
        loads.incrementAndGet();
        return origin;
      }));
    }
    origin.completeExceptionally(new IllegalStateException("origin down"));
    for (CompletableFuture<BlockRead> r : reads) {
      assertThatThrownBy(r::join).isInstanceOf(CompletionException.class).hasMessageContaining("origin down");
    }
    assertThat(loads).hasValue(1);
    assertThat(cache.coalesced()).isEqualTo(9);
    assertThat(cache.dramBytes()).isZero();

    BlockRead retry = cache.get(id("k", 0), b -> CompletableFuture.completedFuture(new byte[BLOCK])).join();
    assertThat(TestingBlocks.fromCache(retry)).isFalse();
    assertThat(TestingBlocks.fromCache(cache.get(id("k", 0), b -> {
      throw new AssertionError("must be a hit");
    }).join())).isTrue();
  }

  @Test
  void blocksOfDifferentEtagsAreDifferentBlocks() {
    try (BlockCache cache = new BlockCache(10 * BLOCK)) {
      etagsApart(cache);
    }
  }

  private static void etagsApart(BlockCache cache) {
    TestingBlocks.bytes(cache.get(new BlockId("b", "k", "\"v1\"", BLOCK, 0), b -> CompletableFuture.completedFuture(new byte[] {1})).join());
    BlockRead v2 = cache.get(new BlockId("b", "k", "\"v2\"", BLOCK, 0),
        b -> CompletableFuture.completedFuture(new byte[] {2})).join();
    assertThat(v2.fromCache()).isFalse();
    assertThat(TestingBlocks.bytes(v2)).containsExactly(2);
  }

  /**
   * An origin load that finishes after close (the node shut down while a response waited for it)
   * leaves no block in DRAM: nothing would ever free its direct memory.
   */
  @Test
  void aLoadThatFinishesAfterCloseHoldsNoMemory() {
    BlockCache cache = new BlockCache(10 * BLOCK);
    CompletableFuture<byte[]> origin = new CompletableFuture<>();
    CompletableFuture<BlockRead> read = cache.get(id("late", 0), b -> origin);
    cache.close();
    origin.complete(new byte[BLOCK]);
    read.join().data().release();
    assertThat(cache.dramBytes()).isZero();
    assertThat(cache.directBytesInUse()).isZero();
  }

  @Test
  void blockIdArithmetic() {
    BlockId last = new BlockId("b", "k", "\"e\"", BLOCK, 2);
    assertThat(last.offset()).isEqualTo(2 * BLOCK);
    assertThat(last.lengthIn(2 * BLOCK + 10)).isEqualTo(10);
    assertThatThrownBy(() -> last.lengthIn(2 * BLOCK)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BlockId("b", "k", "\"e\"", 0, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 20)
  void invalidCapacityIsRefused(@ForAll @IntRange(min = -5, max = 0) int capacity) {
    assertThatThrownBy(() -> new BlockCache(capacity)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Integer.toString(capacity));
  }
}
