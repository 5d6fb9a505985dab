package io.verglas.cache.awareness;

import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockRead;
import io.verglas.cache.block.MetadataStore;
import io.verglas.cache.iceberg.IcebergPaths;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.parquet.ParquetFooter;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads for metadata warming through the node's caches, so what warming reads is what a client
 * then finds: whole metadata objects and Parquet footers land where the S3 read path looks for
 * them.
 *
 * <p>Placement mirrors the S3 read path ({@code s3.ObjectReads}): an Iceberg metadata object
 * (by path) no larger than the metadata store's entry limit is kept whole in the metadata store;
 * a Parquet footer (a {@code .parquet} key) is kept as a footer suffix there, found by the
 * store's bounded suffix reads; anything else, or everything when the node runs without a
 * metadata store, goes through the block cache. Every origin read is counted so warming can
 * charge its byte rate with what it really cost.
 */
final class CachedReads {
  /** Bytes read, and how many of them came from the origin. */
  record Fetched(byte[] data, long originBytes) {}

  private final NodeCaches node;

  CachedReads(NodeCaches node) {
    this.node = node;
  }

  CompletableFuture<ObjectMeta> resolve(ObjectLocation at) {
    return node.reads().resolve(at.bucket(), at.key());
  }

  /** The whole object (at most 2 GiB). */
  CompletableFuture<Fetched> object(ObjectLocation at, ObjectMeta meta) {
    if (meta.size() > Integer.MAX_VALUE - 8) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("Cannot read "
          + at.key() + " whole: " + meta.size() + " bytes"));
    }
    AtomicLong origin = new AtomicLong();
    MetadataStore store = node.metadataStore();
    CompletableFuture<byte[]> data;
    if (store != null && IcebergPaths.isMetadata(at.key()) && meta.size() <= store.maxEntryBytes()) {
      data = store.object(at.bucket(), at.key(), meta.etag(), meta.size(), counted(at, meta, origin))
          .thenApply(MetadataStore.Cached::data);
    } else {
      data = blockRange(at, meta, 0, (int) meta.size(), origin);
    }
    return data.thenApply(bytes -> new Fetched(bytes, origin.get()));
  }

  /** The footer suffix of a Parquet file (empty if it has none). */
  CompletableFuture<Fetched> footer(ObjectLocation at, ObjectMeta meta) {
    AtomicLong origin = new AtomicLong();
    MetadataStore store = node.metadataStore();
    CompletableFuture<byte[]> data;
    if (store != null && IcebergPaths.isParquet(at.key())) {
      // A footer larger than the store's entry limit is read as blocks by clients too.
      data = store.footer(at.bucket(), at.key(), meta.etag(), meta.size(), counted(at, meta, origin))
          .thenCompose(cached -> cached.data().length > 0 || meta.size() < 12
              ? CompletableFuture.completedFuture(cached.data())
              : blockFooter(at, meta, origin));
    } else {
      data = blockFooter(at, meta, origin);
    }
    return data.thenApply(bytes -> new Fetched(bytes, origin.get()));
  }

  /**
   * Brings one block of the version into the block cache (a hit if it is there already);
   * returns the bytes read from the origin for it.
   */
  CompletableFuture<Long> warmBlock(ObjectLocation at, ObjectMeta meta, long index) {
    AtomicLong origin = new AtomicLong();
    BlockId id = new BlockId(at.bucket(), at.key(), meta.etag(), node.blockSize(), index);
    return node.blocks().get(id, block -> node.reads()
            .readVersion(block.bucket(), block.key(), block.etag(), block.offset(), block.lengthIn(meta.size()))
            .thenApply(bytes -> {
              origin.addAndGet(bytes.length);
              return bytes;
            }))
        .thenApply(read -> {
          read.data().release();
          return origin.get();
        });
  }

  private MetadataStore.RangeReader counted(ObjectLocation at, ObjectMeta meta, AtomicLong origin) {
    return (offset, length) -> node.reads().readVersion(at.bucket(), at.key(), meta.etag(), offset, length)
        .thenApply(bytes -> {
          origin.addAndGet(bytes.length);
          return bytes;
        });
  }

  /** The footer through the block cache: the last blocks, as a client's suffix reads would fetch. */
  private CompletableFuture<byte[]> blockFooter(ObjectLocation at, ObjectMeta meta, AtomicLong origin) {
    if (meta.size() < 12) {
      return CompletableFuture.completedFuture(new byte[0]);
    }
    int probe = (int) Math.min(meta.size(), MetadataStore.FOOTER_PROBE_BYTES);
    return blockRange(at, meta, meta.size() - probe, probe, origin).thenCompose(tail -> {
      int suffix;
      try {
        suffix = ParquetFooter.suffixLength(Arrays.copyOfRange(tail, probe - 8, probe));
      } catch (IllegalArgumentException notParquet) {
        return CompletableFuture.completedFuture(new byte[0]);
      }
      if (suffix + 4L > meta.size()) {
        return CompletableFuture.completedFuture(new byte[0]);
      }
      if (suffix <= probe) {
        return CompletableFuture.completedFuture(Arrays.copyOfRange(tail, probe - suffix, probe));
      }
      int missing = suffix - probe;
      return blockRange(at, meta, meta.size() - suffix, missing, origin).thenApply(head -> {
        byte[] footer = Arrays.copyOf(head, suffix);
        System.arraycopy(tail, 0, footer, missing, probe);
        return footer;
      });
    });
  }

  /** Bytes {@code [from, from + length)} of the version, block after block through the cache. */
  private CompletableFuture<byte[]> blockRange(ObjectLocation at, ObjectMeta meta, long from,
      int length, AtomicLong origin) {
    byte[] out = new byte[length];
    if (length == 0) {
      return CompletableFuture.completedFuture(out);
    }
    int blockSize = node.blockSize();
    long first = from / blockSize;
    long last = (from + length - 1) / blockSize;
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (long index = first; index <= last; index++) {
      BlockId id = new BlockId(at.bucket(), at.key(), meta.etag(), blockSize, index);
      chain = chain.thenCompose(v -> node.blocks().get(id, block -> node.reads()
              .readVersion(block.bucket(), block.key(), block.etag(), block.offset(), block.lengthIn(meta.size()))
              .thenApply(bytes -> {
                origin.addAndGet(bytes.length);
                return bytes;
              }))
          .thenAccept(read -> copy(read, id.offset(), from, out)));
    }
    return chain.thenApply(v -> out);
  }

  /** Copies the part of a block inside {@code [from, from + out.length)} and releases the block. */
  private static void copy(BlockRead read, long blockOffset, long from, byte[] out) {
    try {
      long start = Math.max(from, blockOffset);
      long end = Math.min(from + out.length, blockOffset + read.data().readableBytes());
      if (end > start) {
        read.data().getBytes(read.data().readerIndex() + (int) (start - blockOffset), out,
            (int) (start - from), (int) (end - start));
      }
    } finally {
      read.data().release();
    }
  }
}
