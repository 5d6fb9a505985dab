package io.verglas.cache.writeback.fragment;

import java.io.IOException;

/** A fragment does not fit under the store's configured ceiling. */
public final class FragmentStoreFullException extends IOException {
  private static final long serialVersionUID = 1L;

  public FragmentStoreFullException(String message) {
    super(message);
  }
}
