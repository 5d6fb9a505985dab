package io.verglas.ingest.wal;

import io.verglas.wal.EncodedSegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The object-store operations the WAL writer needs. The S3 implementation is
 * {@link S3SegmentStore}; tests use an in-memory one with injected faults.
 *
 * <p>Implementations throw {@link SegmentStoreException} and say whether retrying may help.
 */
public interface SegmentStore {
  /** An object's key and when it was last written (epoch millis, the store's clock). */
  record StoredObject(String key, long lastModifiedMillis) {}

  /**
   * Writes an object only if no object exists under the key (S3 {@code If-None-Match: *}).
   *
   * @return true if this call created the object, false if one already existed
   */
  boolean putIfAbsent(String key, byte[] bytes);

  /** {@link #putIfAbsent(String, byte[])} for a segment kept in parts (streamed if possible). */
  default boolean putIfAbsent(String key, EncodedSegment segment) {
    return putIfAbsent(key, segment.toByteArray());
  }

  /** Writes an object, replacing any under the key. */
  void put(String key, byte[] bytes);

  /** The object's bytes, or empty if there is none. */
  Optional<byte[]> get(String key);

  /** Whether an object exists under the key (S3 HEAD). */
  boolean exists(String key);

  /** Every object under the prefix, in lexicographic key order. */
  List<StoredObject> listObjects(String prefix);

  /** Deletes the object if it exists. */
  void delete(String key);

  /** Every key under the prefix, in lexicographic order. */
  default List<String> list(String prefix) {
    List<String> keys = new ArrayList<>();
    for (StoredObject object : listObjects(prefix)) {
      keys.add(object.key());
    }
    return keys;
  }
}
