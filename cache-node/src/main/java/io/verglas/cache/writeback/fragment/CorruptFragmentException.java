package io.verglas.cache.writeback.fragment;

import java.io.IOException;

/** A fragment file, or one of its cells, failed its checksum or does not parse: an erasure. */
public final class CorruptFragmentException extends IOException {
  private static final long serialVersionUID = 1L;

  public CorruptFragmentException(String message) {
    super(message);
  }
}
