package io.verglas.cache.writeback.code;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Receives the cells of each encoded stripe, in stripe order. */
@FunctionalInterface
public interface StripeSink {
  /**
   * Stripe {@code stripe}'s {@code k + m} cells, indexed by fragment, each with its cell's bytes
   * between position and limit. The buffers are reused for the next stripe: copy what must
   * outlive the call.
   */
  void accept(long stripe, ByteBuffer[] cells) throws IOException;
}
