package io.verglas.cache.block;

/** Test helpers for {@link BlockRead}s, which carry a reference the reader must release. */
final class TestingBlocks {
  private TestingBlocks() {}

  /** The block's bytes; releases the reader's reference. */
  static byte[] bytes(BlockRead read) {
    try {
      return io.netty.buffer.ByteBufUtil.getBytes(read.data());
    } finally {
      read.data().release();
    }
  }

  /** Whether a tier held it; releases the reader's reference. */
  static boolean fromCache(BlockRead read) {
    read.data().release();
    return read.fromCache();
  }
}
