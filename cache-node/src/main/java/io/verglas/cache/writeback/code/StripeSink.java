package io.verglas.cache.writeback.code;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Receives the cells of each encoded stripe, in stripe order. */
@FunctionalInterface
public interface StripeSink {
  /**
   * Stripe {@code stripe}'s {@code k + m} cells, indexed by fragment, each with its cell's bytes
   * between position and limit. The encoder leaves a stripe's buffers alone until the call for
   * the next stripe returns (it fills and codes the next stripe in a second set meanwhile), so a
   * sink may go on writing stripe {@code s}'s cells after this returns, as long as it is done
   * with them when {@code accept(s + 1, ...)} or {@link #release} returns; a sink that copies
   * or writes them at once has nothing to do later.
   */
  void accept(long stripe, ByteBuffer[] cells) throws IOException;

  /**
   * Returns once the sink no longer reads any cell it was given: the encoder calls it before
   * handing back a caller's chunk whose bytes it coded in place. The default does nothing, for
   * sinks that are done with the cells when {@link #accept} returns.
   */
  default void release() throws IOException {}

  /** A sink that hands each stripe to this one, then to {@code next}. */
  default StripeSink andThen(StripeSink next) {
    StripeSink first = this;
    return new StripeSink() {
      @Override
      public void accept(long stripe, ByteBuffer[] cells) throws IOException {
        first.accept(stripe, cells);
        next.accept(stripe, cells);
      }

      @Override
      public void release() throws IOException {
        first.release();
        next.release();
      }
    };
  }
}
