package io.verglas.cache.writeback;

import java.io.IOException;

/**
 * A buffered write was not propagated: the origin holds the key in a state its expectation
 * ({@link OriginExpectation}) does not allow, so someone wrote the key to the origin around the
 * cache since the write was acknowledged. The write stays buffered and readable, its fragments
 * kept, until a later change of the key through the cache replaces it.
 */
public final class PropagationConflictException extends IOException {
  private static final long serialVersionUID = 1L;

  public PropagationConflictException(String message) {
    super(message);
  }
}
