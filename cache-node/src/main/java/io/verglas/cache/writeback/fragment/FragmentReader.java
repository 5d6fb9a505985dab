package io.verglas.cache.writeback.fragment;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Reads one fragment: its header, checked when opened, and any stripe's cell, checked against
 * its CRC32C before it is handed out, in any order. From a local file ({@link #open}) or from
 * the node that holds it over the peer protocol. Not thread-safe.
 */
public interface FragmentReader extends Closeable {
  /**
   * Opens the fragment file and checks its header and length.
   *
   * @throws CorruptFragmentException if either is wrong
   */
  static FragmentReader open(Path file) throws IOException {
    return FileFragmentReader.open(file);
  }

  FragmentHeader header();

  /** Stripe {@code stripe}'s cell length, after checking that {@code cell} has exactly that many bytes left. */
  static int cellLength(FragmentHeader header, long stripe, ByteBuffer cell) {
    int expected = header.geometry().cellLength(header.bodyLength(), stripe);
    if (cell.remaining() != expected) {
      throw new IllegalArgumentException("Cannot read cell " + stripe + ": a buffer of " + cell.remaining()
          + " bytes, the cell has " + expected);
    }
    return expected;
  }

  /**
   * Fills {@code cell} (exactly its remaining bytes, the stripe's cell length) with stripe
   * {@code stripe}'s cell.
   *
   * @throws CorruptFragmentException if the cell fails its checksum
   */
  void readCell(long stripe, ByteBuffer cell) throws IOException;
}
