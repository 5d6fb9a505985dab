package io.verglas.cache.writeback;

import java.io.IOException;

/** Fewer than {@code k} fragments became durable: the PUT fails and leaves nothing behind. */
public final class WriteBackFailedException extends IOException {
  private static final long serialVersionUID = 1L;

  public WriteBackFailedException(String message) {
    super(message);
  }
}
