package io.verglas.cache.writeback.code;

import java.io.IOException;

/** Fewer than {@code k} fragments of a stripe could be read intact: the body cannot be reconstructed. */
public final class NotEnoughFragmentsException extends IOException {
  private static final long serialVersionUID = 1L;

  public NotEnoughFragmentsException(String message) {
    super(message);
  }
}
