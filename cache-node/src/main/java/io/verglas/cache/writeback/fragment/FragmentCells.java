package io.verglas.cache.writeback.fragment;

import io.verglas.cache.writeback.code.CellSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link CellSource} over the fragments of one write that could be opened: a fragment that
 * is absent, belongs to another write or geometry, or whose cell fails its CRC32C is an
 * erasure for the decoder. Counts the corrupt cells it met, for the caller to report.
 */
public final class FragmentCells implements CellSource {
  private final FragmentReader[] readers;
  private final AtomicLong corruptCells = new AtomicLong();

  /**
   * @param expected the header every fragment must carry, but for its index
   * @param readers by fragment index, null where a fragment could not be opened
   */
  public FragmentCells(FragmentHeader expected, List<FragmentReader> readers) {
    Objects.requireNonNull(expected, "expected");
    if (readers.size() != expected.geometry().totalFragments()) {
      throw new IllegalArgumentException("Cannot read fragments: " + readers.size() + " readers for "
          + expected.geometry());
    }
    this.readers = new FragmentReader[readers.size()];
    for (int i = 0; i < readers.size(); i++) {
      FragmentReader reader = readers.get(i);
      if (reader != null && matches(reader.header(), expected, i)) {
        this.readers[i] = reader;
      }
    }
  }

  private static boolean matches(FragmentHeader header, FragmentHeader expected, int index) {
    return header.index() == index && header.identity().equals(expected.identity())
        && header.geometry().equals(expected.geometry()) && header.bodyLength() == expected.bodyLength();
  }

  @Override
  public boolean read(int fragment, long stripe, ByteBuffer cell) throws IOException {
    FragmentReader reader = readers[fragment];
    if (reader == null) {
      return false;
    }
    try {
      reader.readCell(stripe, cell);
      return true;
    } catch (CorruptFragmentException e) {
      corruptCells.incrementAndGet();
      return false;
    }
  }

  /** Fragments that were usable when this source was made. */
  public int usable() {
    int n = 0;
    for (FragmentReader reader : readers) {
      n += reader == null ? 0 : 1;
    }
    return n;
  }

  public long corruptCells() {
    return corruptCells.get();
  }
}
