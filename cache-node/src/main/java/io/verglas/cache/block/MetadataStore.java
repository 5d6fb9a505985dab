package io.verglas.cache.block;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * The metadata store: whole small metadata objects (Iceberg table metadata, manifest lists,
 * manifests) and Parquet footers, kept apart from the data blocks.
 *
 * <p>Design: query planning reads these bytes before any data, on every query; a data scan
 * must not evict them, and they must not wait for a second touch. So they live in their own
 * DRAM map with its own ceiling, with no admission filter; only other metadata competes for
 * the room. Entries are keyed by ETag like blocks, so a new version of an object is a new entry
 * and a read never mixes versions. Concurrent misses of one entry share one load.
 *
 * <p>A footer is found with bounded suffix reads: the last {@value #FOOTER_PROBE_BYTES} bytes
 * (or the whole object if smaller) give the footer length from Parquet's trailer
 * ({@code <footer length, 4 bytes LE> "PAR1"}); a footer longer than the probe costs one more
 * read of exactly the missing bytes. Footers longer than {@code maxEntryBytes}, and files
 * without the trailer, are not stored (the caller reads them as blocks).
 */
public final class MetadataStore {
  public static final int FOOTER_PROBE_BYTES = 64 * 1024;
  private static final byte[] PARQUET_MAGIC = {'P', 'A', 'R', '1'};

  /** What an entry holds: a whole object, or the footer suffix of a Parquet file. */
  public enum Kind { OBJECT, FOOTER }

  /** An entry's identity: one kind of bytes of one object version. */
  public record Key(String bucket, String key, String etag, Kind kind) {}

  /** Reads {@code length} bytes at {@code offset} of the object version being cached. */
  @FunctionalInterface
  public interface RangeReader {
    CompletableFuture<byte[]> read(long offset, int length);
  }

  /** Bytes handed to a reader (shared: never written), and whether the store already had them. */
  public record Cached(byte[] data, boolean fromCache) {}

  private final DramTier<Key, byte[]> entries;
  /** Files found to have no storable footer, so they are not probed again. */
  private final com.github.benmanes.caffeine.cache.Cache<Key, Boolean> noFooter =
      com.github.benmanes.caffeine.cache.Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run).build();
  private final int maxEntryBytes;
  private final ConcurrentHashMap<Key, CompletableFuture<byte[]>> inFlight = new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder fills = new LongAdder();

  /**
   * @param capacityBytes the store's ceiling
   * @param maxEntryBytes the largest object or footer stored (at most the capacity)
   */
  public MetadataStore(long capacityBytes, int maxEntryBytes) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("Invalid metadata store capacity: " + capacityBytes);
    }
    if (maxEntryBytes <= 0 || maxEntryBytes > capacityBytes) {
      throw new IllegalArgumentException("Invalid metadata entry limit: " + maxEntryBytes
          + " (must be 1.." + capacityBytes + ")");
    }
    this.entries = DramTier.ofArrays(capacityBytes);
    this.maxEntryBytes = maxEntryBytes;
  }

  public int maxEntryBytes() {
    return maxEntryBytes;
  }

  /** The whole object ({@code size} bytes, at most {@link #maxEntryBytes()}). */
  public CompletableFuture<Cached> object(String bucket, String key, String etag, long size,
      RangeReader reader) {
    if (size > maxEntryBytes) {
      throw new IllegalArgumentException("Cannot keep an object of " + size
          + " bytes in the metadata store (limit " + maxEntryBytes + ")");
    }
    return get(new Key(bucket, key, etag, Kind.OBJECT), () -> reader.read(0, (int) size));
  }

  /**
   * The footer suffix of a Parquet file of {@code size} bytes: its last N bytes, where N is the
   * footer length plus the 8-byte trailer; an empty array if there is no storable footer.
   */
  public CompletableFuture<Cached> footer(String bucket, String key, String etag, long size,
      RangeReader reader) {
    Key k = new Key(bucket, key, etag, Kind.FOOTER);
    if (noFooter.getIfPresent(k) != null) {
      return CompletableFuture.completedFuture(new Cached(new byte[0], true));
    }
    return get(k, () -> loadFooter(size, reader).whenComplete((footer, error) -> {
      if (error == null && footer.length == 0) {
        noFooter.put(k, Boolean.TRUE);
      }
    }));
  }

  /**
   * The whole object if the store holds it, else null (nothing is loaded or stored). Counts a
   * hit only when it returns the object.
   */
  public byte[] objectIfPresent(String bucket, String key, String etag) {
    byte[] data = entries.get(new Key(bucket, key, etag, Kind.OBJECT));
    if (data != null) {
      hits.increment();
    }
    return data;
  }

  /**
   * The footer suffix of the file of {@code size} bytes if the store holds it and it covers
   * {@code from} (so a read starting there can be served from it), else null. Counts a hit only
   * when it returns the footer.
   */
  public byte[] footerCovering(String bucket, String key, String etag, long size, long from) {
    byte[] data = entries.get(new Key(bucket, key, etag, Kind.FOOTER));
    if (data == null || from < size - data.length) {
      return null;
    }
    hits.increment();
    return data;
  }

  private CompletableFuture<Cached> get(Key key, java.util.function.Supplier<CompletableFuture<byte[]>> load) {
    byte[] cached = entries.get(key);
    if (cached != null) {
      hits.increment();
      return CompletableFuture.completedFuture(new Cached(cached, true));
    }
    CompletableFuture<byte[]> mine = new CompletableFuture<>();
    CompletableFuture<byte[]> existing = inFlight.putIfAbsent(key, mine);
    if (existing != null) {
      return existing.thenApply(d -> new Cached(d, false));
    }
    cached = entries.get(key);
    if (cached != null) {
      inFlight.remove(key, mine);
      mine.complete(cached);
      hits.increment();
      return CompletableFuture.completedFuture(new Cached(cached, true));
    }
    misses.increment();
    CompletableFuture<byte[]> loading;
    try {
      loading = load.get();
    } catch (RuntimeException e) {
      loading = CompletableFuture.failedFuture(e);
    }
    loading.whenComplete((data, error) -> {
      if (error == null && data.length > 0 && data.length <= maxEntryBytes && entries.put(key, data)) {
        fills.increment();
      }
      inFlight.remove(key, mine);
      if (error != null) {
        mine.completeExceptionally(error);
      } else {
        mine.complete(data);
      }
    });
    return mine.thenApply(d -> new Cached(d, false));
  }

  private CompletableFuture<byte[]> loadFooter(long size, RangeReader reader) {
    if (size < 12) {
      return CompletableFuture.completedFuture(new byte[0]);
    }
    int probe = (int) Math.min(size, FOOTER_PROBE_BYTES);
    return reader.read(size - probe, probe).thenCompose(tail -> {
      if (tail.length != probe || !Arrays.equals(tail, probe - 4, probe, PARQUET_MAGIC, 0, 4)) {
        return CompletableFuture.completedFuture(new byte[0]);
      }
      long footerLength = (tail[probe - 8] & 0xFFL) | (tail[probe - 7] & 0xFFL) << 8
          | (tail[probe - 6] & 0xFFL) << 16 | (tail[probe - 5] & 0xFFL) << 24;
      long total = footerLength + 8;
      if (total + 4 > size || total > maxEntryBytes) {
        return CompletableFuture.completedFuture(new byte[0]);
      }
      if (total <= probe) {
        return CompletableFuture.completedFuture(Arrays.copyOfRange(tail, (int) (probe - total), probe));
      }
      int missing = (int) (total - probe);
      return reader.read(size - total, missing).thenApply(head -> {
        byte[] footer = Arrays.copyOf(head, (int) total);
        System.arraycopy(tail, 0, footer, missing, probe);
        return footer;
      });
    });
  }

  /** Removes every entry matching the predicate; returns how many. */
  public long purge(Predicate<Key> matching) {
    noFooter.asMap().keySet().removeIf(matching);
    return entries.purge(matching);
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  public long fills() {
    return fills.sum();
  }

  public long evictions() {
    return entries.evictions();
  }

  public long bytes() {
    return entries.residentBytes();
  }

  public long capacityBytes() {
    return entries.capacityBytes();
  }

  public long entries() {
    return entries.entries();
  }

  public void invalidateAll() {
    entries.invalidateAll();
    noFooter.invalidateAll();
  }
}
