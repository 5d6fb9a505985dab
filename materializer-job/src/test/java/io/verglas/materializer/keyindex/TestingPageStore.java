package io.verglas.materializer.keyindex;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An {@link IndexPageStore} in a map, as keyed state holds it (a value per key group and state
 * key), counting reads and writes; {@link #copy} stands for a checkpoint of it.
 */
final class TestingPageStore implements IndexPageStore {
  private final Map<String, byte[]> values;
  int reads;
  int writes;

  TestingPageStore() {
    this(new HashMap<>());
  }

  private TestingPageStore(Map<String, byte[]> values) {
    this.values = values;
  }

  /** The same values in a store of their own. */
  TestingPageStore copy() {
    return new TestingPageStore(new HashMap<>(values));
  }

  @Override
  public byte[] get(int keyGroup, String key) {
    reads++;
    return values.get(stored(keyGroup, key));
  }

  @Override
  public void put(int keyGroup, String key, byte[] value) {
    writes++;
    values.put(stored(keyGroup, key), value);
  }

  @Override
  public void remove(int keyGroup, String key) {
    values.remove(stored(keyGroup, key));
  }

  @Override
  public Stream<String> keys() {
    List<String> keys = new ArrayList<>();
    for (String stored : values.keySet()) {
      keys.add(stored.substring(stored.indexOf('|') + 1));
    }
    return keys.stream();
  }

  /** How many values it holds (pages and metas). */
  int size() {
    return values.size();
  }

  /** The state key must name the key group it is written under, as the index's do. */
  private static String stored(int keyGroup, String key) {
    if (PageLayout.keyGroupOf(key) != keyGroup) {
      throw new IllegalArgumentException(key + " written under key group " + keyGroup);
    }
    return keyGroup + "|" + key;
  }
}
