package io.verglas.cli.push;

import java.util.Map;
import java.util.NoSuchElementException;

/**
 * A row source over a text file. {@code hasNext} reads the next row ahead; {@code next} hands
 * it over without reading further, so a bad row fails on the call that reaches it.
 */
abstract class LookaheadRowSource implements RowSource {
  private final TextFile file;
  private Map<String, Object> pending;
  private boolean exhausted;

  LookaheadRowSource(TextFile file) {
    this.file = file;
  }

  /** The next row, or null at the end of the input. */
  abstract Map<String, Object> readRow();

  final java.io.BufferedReader reader() {
    return file.reader();
  }

  @Override
  public final boolean hasNext() {
    if (pending == null && !exhausted) {
      pending = readRow();
      exhausted = pending == null;
    }
    return pending != null;
  }

  @Override
  public final Map<String, Object> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Map<String, Object> row = pending;
    pending = null;
    return row;
  }

  @Override
  public final double progress() {
    return file.progress();
  }

  @Override
  public final void close() {
    file.close();
  }
}
