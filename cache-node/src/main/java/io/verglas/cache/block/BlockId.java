package io.verglas.cache.block;

import java.util.Objects;

/**
 * The identity of a cached block: bytes {@code [index * blockSize, (index + 1) * blockSize)} of
 * the version of {@code bucket/key} whose ETag is {@code etag}. Because the ETag is part of the
 * identity, a block can never be served for another version of the object; blocks of replaced
 * versions simply stop being asked for and age out.
 */
public record BlockId(String bucket, String key, String etag, int blockSize, long index) {
  public BlockId {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(etag, "etag");
    if (blockSize <= 0) {
      throw new IllegalArgumentException("Invalid block size: " + blockSize);
    }
    if (index < 0) {
      throw new IllegalArgumentException("Invalid block index: " + index);
    }
  }

  /** Offset of the block's first byte in the object. */
  public long offset() {
    return index * blockSize;
  }

  /** Length of this block in an object of {@code objectSize} bytes (the last block is short). */
  public int lengthIn(long objectSize) {
    long remaining = objectSize - offset();
    if (remaining <= 0) {
      throw new IllegalArgumentException(
          "Block " + index + " lies beyond an object of " + objectSize + " bytes");
    }
    return (int) Math.min(blockSize, remaining);
  }
}
