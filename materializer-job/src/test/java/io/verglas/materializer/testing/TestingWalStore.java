package io.verglas.materializer.testing;

import io.verglas.materializer.store.WalStore;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalLayout.SegmentName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;

/** An in-memory {@link WalStore} with S3's listing semantics. */
public final class TestingWalStore implements WalStore {
  private final WalLayout layout;
  private final Map<String, byte[]> objects = new ConcurrentSkipListMap<>();
  private final List<String> deleted = new ArrayList<>();

  public TestingWalStore(WalLayout layout) {
    this.layout = layout;
  }

  public void put(String key, byte[] bytes) {
    objects.put(key, bytes);
  }

  public synchronized List<String> deleted() {
    return List.copyOf(deleted);
  }

  public boolean contains(String key) {
    return objects.containsKey(key);
  }

  @Override
  public List<String> listStreams() {
    TreeSet<String> streams = new TreeSet<>();
    for (String key : objects.keySet()) {
      if (key.startsWith(layout.prefix())) {
        String rest = key.substring(layout.prefix().length());
        int slash = rest.indexOf('/');
        if (slash > 0) {
          streams.add(rest.substring(0, slash));
        }
      }
    }
    return new ArrayList<>(streams);
  }

  @Override
  public List<SegmentName> listSegments(String streamId, String startAfter, int max) {
    List<SegmentName> segments = new ArrayList<>();
    for (String key : objects.keySet()) {
      if (key.startsWith(layout.streamPrefix(streamId))
          && (startAfter == null || key.compareTo(startAfter) > 0) && segments.size() < max) {
        layout.parse(key).ifPresent(segments::add);
      }
    }
    return segments;
  }

  @Override
  public Optional<byte[]> get(String key) {
    return Optional.ofNullable(objects.get(key));
  }

  @Override
  public synchronized void delete(Collection<String> keys) {
    for (String key : keys) {
      objects.remove(key);
      deleted.add(key);
    }
  }
}
