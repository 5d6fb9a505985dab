package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * The DRAM and NVMe ceilings hold under random workloads: after every lookup (DRAM bytes and
 * the NVMe reservation), and, once background writes are done, for the bytes actually on disk.
 * Contents are checked against a model (block bytes are a function of the id).
 */
class TierCeilingTest {
  private static final int BLOCK = 2048;

  private static BlockId id(int object, long index, int version) {
    return new BlockId("b", "o" + object, "\"v" + version + "\"", BLOCK, index);
  }

  private static byte[] content(BlockId id, int length) {
    byte[] d = new byte[length];
    new Random(id.hashCode()).nextBytes(d);
    return d;
  }

  @Property(tries = 30)
  void ceilingsHoldAndContentIsRight(
      @ForAll @IntRange(min = BLOCK, max = 12 * BLOCK) int dramCapacity,
      @ForAll @IntRange(min = BLOCK + 512, max = 20 * BLOCK) int nvmeCapacity,
      @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 8 * BLOCK) Integer> objectSizes,
      @ForAll @Size(min = 1, max = 250) List<@IntRange(min = 0, max = 100_000) Integer> reads) throws IOException {
    Path dir = Files.createTempDirectory("ceiling-");
    try (BlockCache cache = new BlockCache(dramCapacity, dir, nvmeCapacity, 2, BLOCK)) {
      for (int r : reads) {
        int object = r % objectSizes.size();
        int size = objectSizes.get(object);
        int blocks = (size + BLOCK - 1) / BLOCK;
        int version = (r / 7) % 2; // two versions of each object
        BlockId id = id(object, (r / objectSizes.size()) % blocks, version);
        int length = id.lengthIn(size);
        BlockRead read = cache.get(id, b -> CompletableFuture.completedFuture(content(b, length))).join();
        assertThat(java.util.Arrays.equals(TestingBlocks.bytes(read), content(id, length))).as("content of %s", id).isTrue();
        assertThat(cache.dramBytes()).isLessThanOrEqualTo(dramCapacity);
        assertThat(cache.nvmeBytes()).isLessThanOrEqualTo(nvmeCapacity);
        if (r % 17 == 0) {
          cache.flush();
          assertThat(bytesOnDisk(dir)).isEqualTo(cache.nvmeBytes()).isLessThanOrEqualTo(nvmeCapacity);
        }
      }
      cache.flush();
      assertThat(bytesOnDisk(dir)).isEqualTo(cache.nvmeBytes()).isLessThanOrEqualTo(nvmeCapacity);
      assertThat(cache.hits() + cache.misses() + cache.coalesced()).isEqualTo(reads.size());
    } finally {
      deleteRecursively(dir);
    }
  }

  /** Many threads at once; a watcher samples the gauges while they run. */
  @Property(tries = 4)
  void ceilingsHoldUnderConcurrency(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) throws Exception {
    Path dir = Files.createTempDirectory("ceiling-concurrent-");
    long dramCapacity = 6L * BLOCK;
    long nvmeCapacity = 9L * BLOCK;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong maxDram = new AtomicLong();
    AtomicLong maxNvme = new AtomicLong();
    try (BlockCache cache = new BlockCache(dramCapacity, dir, nvmeCapacity, 3, BLOCK)) {
      Future<?> watcher = pool.submit(() -> {
        while (!stop.get()) {
          maxDram.accumulateAndGet(cache.dramBytes(), Math::max);
          maxNvme.accumulateAndGet(cache.nvmeBytes(), Math::max);
          Thread.yield();
        }
      });
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < 5; w++) {
        Random random = new Random(seed + w);
        workers.add(pool.submit(() -> {
          for (int i = 0; i < 300; i++) {
            int object = random.nextInt(12);
            BlockId id = id(object, random.nextInt(4), random.nextInt(2));
            int length = BLOCK - 100 * (object % 3);
            byte[] got = TestingBlocks.bytes(cache.get(id, b -> CompletableFuture.supplyAsync(() -> content(b, length))).join());
            assertThat(java.util.Arrays.equals(got, content(id, length))).as("content of %s", id).isTrue();
          }
        }));
      }
      for (Future<?> f : workers) {
        f.get(60, TimeUnit.SECONDS);
      }
      stop.set(true);
      watcher.get(10, TimeUnit.SECONDS);
      cache.flush();
      assertThat(maxDram.get()).as("seed %d", seed).isLessThanOrEqualTo(dramCapacity);
      assertThat(maxNvme.get()).as("seed %d", seed).isLessThanOrEqualTo(nvmeCapacity);
      assertThat(bytesOnDisk(dir)).as("seed %d", seed).isEqualTo(cache.nvmeBytes()).isLessThanOrEqualTo(nvmeCapacity);
    } finally {
      stop.set(true);
      pool.shutdownNow();
      deleteRecursively(dir);
    }
  }

  static long bytesOnDisk(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
