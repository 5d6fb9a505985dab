package io.verglas.cache.writeback.fragment;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A fragment being written into a {@link FragmentStore}: cells go to a temporary file; the
 * fragment exists, and counts toward an acknowledgment, only once {@link #commit} returned.
 * Closing an uncommitted output deletes the temporary file and releases its reservation.
 */
public interface FragmentOutput extends Closeable {
  FragmentHeader header();

  /** Appends the next stripe's cell (its remaining bytes). */
  void writeCell(ByteBuffer cell) throws IOException;

  /**
   * Makes the fragment durable: the file is fsynced, renamed to its final name and the
   * directory fsynced, in that order. Calling it again does nothing.
   */
  void commit() throws IOException;

  /** Abandons an uncommitted fragment; does nothing after {@link #commit}. */
  @Override
  void close() throws IOException;
}
