package io.verglas.cache.s3;

/**
 * Told once of each object read with a body: the hook through which a node learns what its
 * clients read (Iceberg awareness classifies it). A streamed body is told when its response
 * ends (completed, failed or cut off by the client), on the connection's event loop, with the
 * bytes handed to the socket: for a client that stops early that is less than the range it asked
 * for, give or take the bytes still in socket buffers. Implementations must not block, do I/O or
 * throw; what they throw is ignored.
 */
@FunctionalInterface
public interface ReadObserver {
  ReadObserver NONE = (bucket, key, first, last) -> { };

  /** A read of bytes {@code [first, last]} (inclusive, as in a Range header) of the object, as delivered. */
  void onRead(String bucket, String key, long first, long last);

  /**
   * A read cut short (the client went away, or the response failed) whose delivered bytes,
   * less what socket buffers may still have held, end at {@code last}: the client read the
   * bytes from {@code first} up to about {@code last}, and the part beyond it is unknown.
   */
  default void onCutShortRead(String bucket, String key, long first, long last) {
    onRead(bucket, key, first, last);
  }
}
