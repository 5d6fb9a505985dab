package io.verglas.cache.s3;

/**
 * Told of each object read with a body, on the serving thread, before its bytes are fetched: the
 * hook through which a node learns what its clients read (Iceberg awareness classifies it).
 * Implementations must not block, do I/O or throw; what they throw is ignored.
 */
@FunctionalInterface
public interface ReadObserver {
  ReadObserver NONE = (bucket, key, first, last) -> { };

  /** A read of bytes {@code [first, last]} (inclusive, as in a Range header) of the object. */
  void onRead(String bucket, String key, long first, long last);
}
