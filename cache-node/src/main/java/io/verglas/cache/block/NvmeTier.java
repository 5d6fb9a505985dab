package io.verglas.cache.block;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVMe tier: one file per block under a directory, in the {@link BlockFile} format, with an
 * in-memory index rebuilt from the files at startup.
 *
 * <p>Design. Files live at {@code <dir>/v1/<xx>/<name>.blk}, where name is a 128-bit hash of
 * the block id (the header holds the full id, and a file whose header does not hash to its name
 * is discarded). The index is a Caffeine cache of {@link Entry}s weighted by file length; its
 * order (W-TinyLFU) chooses victims. The ceiling is a byte reservation, as in the DRAM tier:
 * {@code diskBytes} counts every block and temp file that exists or is being written, a writer
 * reserves the file's length (compare-and-set against the capacity) before creating anything,
 * and bytes are released only after the file is deleted. So the bytes on disk never exceed the
 * capacity, whatever the interleaving of writers, readers and evictions.
 *
 * <p>An entry is WRITING until its file is renamed into place, then READY; removal marks it
 * REMOVED and deletes the file (a READY entry at once, a WRITING one by its writer when it
 * finishes). State changes and the rename happen under the entry's lock, so a writer never
 * renames a file into place for an entry that is already gone. Writes are temp file + rename,
 * without fsync: a block lost or torn by a crash fails its length or checksum check and is
 * dropped (the origin still has it). Temp files are deleted at startup.
 *
 * <p>Reads run on the tier's own threads and check the data CRC32C; a block that fails is
 * removed and reported as absent, so the caller refetches it from the origin.
 */
final class NvmeTier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NvmeTier.class);
  static final String FORMAT_DIR = "v" + BlockFile.VERSION;
  private static final String BLOCK_SUFFIX = ".blk";
  private static final String TEMP_SUFFIX = ".tmp";
  private static final int EVICTION_BATCH = 8;

  private enum State { WRITING, READY, REMOVED }

  /** An index entry; its file is {@code file} once READY. */
  private final class Entry {
    final Path file;
    final int length;
    private State state;

    Entry(Path file, int length, State state) {
      this.file = file;
      this.length = length;
      this.state = state;
    }

    synchronized boolean isReady() {
      return state == State.READY;
    }

    /** Called once the entry left the index: deletes the file, or lets its writer do it. */
    synchronized void dispose() {
      if (state == State.READY) {
        deleteAndRelease(file, length);
      }
      state = State.REMOVED;
    }

    /** Moves the written temp file into place unless the entry was removed meanwhile. */
    synchronized boolean publish(Path temp) throws IOException {
      if (state == State.REMOVED) {
        deleteAndRelease(temp, length);
        return false;
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      state = State.READY;
      return true;
    }
  }

  private final Path dir;
  private final long capacityBytes;
  private final ExecutorService io;
  private final Cache<BlockId, Entry> index;
  private final AtomicLong diskBytes = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicIntegerArray createdDirs =
      new java.util.concurrent.atomic.AtomicIntegerArray(256);
  private final Set<CompletableFuture<?>> pendingWrites = ConcurrentHashMap.newKeySet();
  private final AtomicInteger queuedWrites = new AtomicInteger();
  private final int maxQueuedWrites;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder fills = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder checksumFailures = new LongAdder();
  private final LongAdder writeFailures = new LongAdder();
  private final LongAdder droppedWrites = new LongAdder();
  private final long recovered;
  private volatile boolean closed;

  /**
   * Opens the tier over {@code directory} (created if missing) and recovers its index.
   *
   * @throws UncheckedIOException if the directory cannot be created or read
   */
  NvmeTier(Path directory, long capacityBytes, int ioThreads) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("Invalid NVMe capacity: " + capacityBytes);
    }
    if (ioThreads < 1) {
      throw new IllegalArgumentException("Invalid NVMe I/O threads: " + ioThreads);
    }
    this.dir = directory.resolve(FORMAT_DIR);
    this.capacityBytes = capacityBytes;
    this.maxQueuedWrites = 64 * ioThreads;
    this.index = Caffeine.newBuilder()
        .maximumWeight(capacityBytes)
        .weigher((BlockId id, Entry e) -> e.length)
        .executor(Runnable::run)
        .evictionListener((BlockId id, Entry e, RemovalCause cause) -> {
          // Safety net only: reservations keep the index below its maximum weight.
          if (e != null) {
            evictions.increment();
            e.dispose();
          }
        })
        .build();
    AtomicInteger threadNumber = new AtomicInteger();
    this.io = Executors.newFixedThreadPool(ioThreads, r -> {
      Thread t = new Thread(r, "verglas-nvme-" + threadNumber.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      Files.createDirectories(dir);
      this.recovered = recover();
    } catch (IOException e) {
      io.shutdownNow();
      throw new UncheckedIOException("Cannot open the NVMe tier in " + directory + ": " + e, e);
    }
  }

  /**
   * Rebuilds the index from the block files: temp files and files that are damaged, misplaced
   * or of an unknown format are deleted; if the files exceed the capacity (it was lowered), the
   * excess is deleted.
   */
  private long recover() throws IOException {
    long count = 0;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!Files.isRegularFile(file)) {
          continue;
        }
        String name = file.getFileName().toString();
        if (!name.endsWith(BLOCK_SUFFIX)) {
          Files.deleteIfExists(file);
          continue;
        }
        BlockFile.Header header;
        long size;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
          header = BlockFile.readHeader(channel);
          size = channel.size();
        } catch (BlockFile.CorruptBlockException e) {
          LOG.warn("Dropping block file {}: {}", file, e.getMessage());
          Files.deleteIfExists(file);
          continue;
        }
        if (size != header.fileLength() || !file.equals(pathOf(header.id()))) {
          LOG.warn("Dropping block file {}: length {} or name does not match its header", file, size);
          Files.deleteIfExists(file);
          continue;
        }
        int length = (int) size;
        if (!reserveWithEviction(length)) {
          Files.deleteIfExists(file);
          continue;
        }
        Entry entry = new Entry(file, length, State.READY);
        Entry previous = index.asMap().putIfAbsent(header.id(), entry);
        if (previous != null) {
          diskBytes.addAndGet(-length);
          continue;
        }
        count++;
      }
    }
    index.cleanUp();
    return count;
  }

  /** The block's data if this tier holds a valid copy, else null (never a failed future). */
  CompletableFuture<byte[]> read(BlockId id) {
    Entry entry = index.getIfPresent(id);
    if (entry == null || !entry.isReady() || closed) {
      misses.increment();
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    try {
      io.execute(() -> result.complete(readFile(id, entry)));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      misses.increment();
      result.complete(null);
    }
    return result;
  }

  private byte[] readFile(BlockId id, Entry entry) {
    try (FileChannel channel = FileChannel.open(entry.file, StandardOpenOption.READ)) {
      BlockFile.Header header = BlockFile.readHeader(channel);
      if (!header.id().equals(id)) {
        throw new BlockFile.CorruptBlockException("Cannot read block " + id + ": the file holds " + header.id());
      }
      byte[] data = BlockFile.readData(channel, header);
      hits.increment();
      return data;
    } catch (NoSuchFileException e) {
      // Evicted between the lookup and the open.
      misses.increment();
      return null;
    } catch (BlockFile.CorruptBlockException e) {
      checksumFailures.increment();
      misses.increment();
      LOG.warn("Dropping block file {}: {}", entry.file, e.getMessage());
      remove(id, entry);
      return null;
    } catch (IOException | RuntimeException e) {
      misses.increment();
      LOG.warn("Cannot read block file {}; treating it as a miss", entry.file, e);
      remove(id, entry);
      return null;
    }
  }

  boolean contains(BlockId id) {
    Entry e = index.asMap().get(id);
    return e != null;
  }

  /**
   * Stores the block in the background unless it is already held. Writes beyond a bounded
   * queue are dropped (a cache may skip a fill; readers never wait for NVMe writes).
   */
  void write(BlockId id, byte[] data) {
    if (closed || index.asMap().containsKey(id)) {
      return;
    }
    if (queuedWrites.incrementAndGet() > maxQueuedWrites) {
      queuedWrites.decrementAndGet();
      droppedWrites.increment();
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    pendingWrites.add(done);
    try {
      io.execute(() -> {
        try {
          writeNow(id, data);
        } finally {
          queuedWrites.decrementAndGet();
          pendingWrites.remove(done);
          done.complete(null);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      queuedWrites.decrementAndGet();
      pendingWrites.remove(done);
      done.complete(null);
    }
  }

  private void writeNow(BlockId id, byte[] data) {
    if (closed || index.asMap().containsKey(id)) {
      return;
    }
    byte[] header;
    try {
      header = BlockFile.encodeHeader(id, data);
    } catch (IllegalArgumentException e) {
      droppedWrites.increment();
      return;
    }
    int length = header.length + data.length;
    if (!reserveWithEviction(length)) {
      droppedWrites.increment();
      return;
    }
    Path file = pathOf(id);
    Entry entry = new Entry(file, length, State.WRITING);
    if (index.asMap().putIfAbsent(id, entry) != null) {
      diskBytes.addAndGet(-length);
      return;
    }
    Path temp = file.resolveSibling(file.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + TEMP_SUFFIX);
    try {
      ensureParent(file);
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer[] buffers = {ByteBuffer.wrap(header), ByteBuffer.wrap(data)};
        while (buffers[1].hasRemaining()) {
          out.write(buffers);
        }
      }
      if (entry.publish(temp)) {
        fills.increment();
      }
    } catch (IOException | RuntimeException e) {
      writeFailures.increment();
      LOG.warn("Cannot write block file {}", file, e);
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // the reservation stays taken until restart rather than risk exceeding the ceiling
        return;
      }
      // Temp deleted: give back its bytes unless removal already handed the entry to us.
      synchronized (entry) {
        if (entry.state != State.REMOVED) {
          entry.state = State.REMOVED;
        }
      }
      index.asMap().remove(id, entry);
      diskBytes.addAndGet(-length);
    }
  }

  /** Creates the fan-out directory of {@code file} once. */
  private void ensureParent(Path file) throws IOException {
    int fanOut = Integer.parseInt(file.getParent().getFileName().toString(), 16);
    if (createdDirs.get(fanOut) == 0) {
      Files.createDirectories(file.getParent());
      createdDirs.set(fanOut, 1);
    }
  }

  /** Reserves {@code length} bytes of the ceiling, evicting cold blocks as needed. */
  private boolean reserveWithEviction(int length) {
    if (length > capacityBytes) {
      return false;
    }
    for (int attempt = 0; attempt < 8; attempt++) {
      long now = diskBytes.get();
      if (now + length <= capacityBytes) {
        if (diskBytes.compareAndSet(now, now + length)) {
          return true;
        }
        continue;
      }
      if (!evictColdest(length)) {
        return false;
      }
    }
    return false;
  }

  private boolean evictColdest(int length) {
    var eviction = index.policy().eviction().orElseThrow();
    boolean removed = false;
    for (var victim : eviction.coldest(EVICTION_BATCH).entrySet()) {
      if (remove(victim.getKey(), victim.getValue())) {
        evictions.increment();
        removed = true;
        if (diskBytes.get() + length <= capacityBytes) {
          break;
        }
      }
    }
    return removed;
  }

  /**
   * Removes the entry and disposes of it while its key is still locked in the index. Disposing
   * after the removal left a window in which a writer of the same block could take the freed key
   * and rename its new file into the same path, which the late dispose then deleted: the new
   * entry's bytes stayed reserved for a file that was gone (seen by {@code TierCeilingTest}).
   */
  private boolean remove(BlockId id, Entry entry) {
    boolean[] removed = {false};
    index.asMap().computeIfPresent(id, (key, current) -> {
      if (current != entry) {
        return current;
      }
      entry.dispose();
      removed[0] = true;
      return null;
    });
    return removed[0];
  }

  private void deleteAndRelease(Path file, int length) {
    try {
      Files.deleteIfExists(file);
      diskBytes.addAndGet(-length);
    } catch (IOException e) {
      // Keep the bytes reserved: the file may still be there.
      LOG.warn("Cannot delete block file {}", file, e);
    }
  }

  /** Removes every block matching the predicate; returns how many. */
  long purge(Predicate<BlockId> matching) {
    long removed = 0;
    for (var e : index.asMap().entrySet()) {
      if (matching.test(e.getKey()) && remove(e.getKey(), e.getValue())) {
        removed++;
      }
    }
    return removed;
  }

  /** Waits until the writes accepted so far are on disk (or dropped). */
  void flush() {
    CompletableFuture.allOf(pendingWrites.toArray(new CompletableFuture<?>[0])).join();
  }

  Path pathOf(BlockId id) {
    String name = name(id);
    return dir.resolve(name.substring(0, 2)).resolve(name + BLOCK_SUFFIX);
  }

  private static String name(BlockId id) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot name block files: the JDK has no SHA-256", e);
    }
    for (String part : new String[] {id.bucket(), id.key(), id.etag()}) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
      sha.update(bytes);
    }
    sha.update(ByteBuffer.allocate(12).putInt(id.blockSize()).putLong(id.index()).array());
    return HexFormat.of().formatHex(sha.digest(), 0, 16);
  }

  long diskBytes() {
    return diskBytes.get();
  }

  long capacityBytes() {
    return capacityBytes;
  }

  long entries() {
    return index.estimatedSize();
  }

  long hits() {
    return hits.sum();
  }

  long misses() {
    return misses.sum();
  }

  long fills() {
    return fills.sum();
  }

  long evictions() {
    return evictions.sum();
  }

  long checksumFailures() {
    return checksumFailures.sum();
  }

  long droppedWrites() {
    return droppedWrites.sum() + writeFailures.sum();
  }

  long recovered() {
    return recovered;
  }

  /** Finishes queued writes (up to a few seconds) and stops the tier's threads; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    io.shutdown();
    try {
      if (!io.awaitTermination(10, TimeUnit.SECONDS)) {
        io.shutdownNow();
      }
    } catch (InterruptedException e) {
      io.shutdownNow();
      Thread.currentThread().interrupt();
    }
    closed = true;
  }
}
