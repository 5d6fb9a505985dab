package io.verglas.ingest.wal;

import java.util.List;
import java.util.Optional;

/**
 * The three object-store operations the WAL writer needs. The S3 implementation is
 * {@link S3SegmentStore}; tests use an in-memory one with injected faults.
 *
 * <p>Implementations throw {@link SegmentStoreException} and say whether retrying may help.
 */
public interface SegmentStore {
  /**
   * Writes an object only if no object exists under the key (S3 {@code If-None-Match: *}).
   *
   * @return true if this call created the object, false if one already existed
   */
  boolean putIfAbsent(String key, byte[] bytes);

  /** The object's bytes, or empty if there is none. */
  Optional<byte[]> get(String key);

  /** Every key under the prefix, in lexicographic order. */
  List<String> list(String prefix);
}
