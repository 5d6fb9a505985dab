package io.verglas.materializer.store;

import io.verglas.wal.WalLayout.SegmentName;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** The object-store operations the materializer performs on the write-ahead log. */
public interface WalStore extends AutoCloseable {
  /** The ids of the streams that have segments (or had: a stream prefix may be empty). */
  List<String> listStreams();

  /** Up to {@code max} segments of a stream whose keys sort after {@code startAfter} (or all if null), in order. */
  List<SegmentName> listSegments(String streamId, String startAfter, int max);

  /** The bytes of a segment, or empty when the object does not exist. */
  Optional<byte[]> get(String key);

  /**
   * Deletes segments; deleting a missing segment succeeds. A store deletes a batch with as few
   * requests as it can (a commit deletes every segment it covers completely).
   *
   * @throws RuntimeException naming a segment that could not be deleted; the others may be gone
   */
  void delete(Collection<String> keys);

  /** Deletes one segment; deleting a missing segment succeeds. */
  default void delete(String key) {
    delete(List.of(key));
  }

  @Override
  default void close() {}
}
