package io.verglas.cache.writeback.code;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Where a {@link StripeDecoder} reads fragments' cells from; each fragment is read in stripe order. */
@FunctionalInterface
public interface CellSource {
  /**
   * Fills {@code cell} (its remaining bytes, exactly) with fragment {@code fragment}'s cell of
   * stripe {@code stripe} and returns true; returns false when that cell cannot be had or fails
   * its checksum: the decoder treats it as an erasure.
   */
  boolean read(int fragment, long stripe, ByteBuffer cell) throws IOException;
}
