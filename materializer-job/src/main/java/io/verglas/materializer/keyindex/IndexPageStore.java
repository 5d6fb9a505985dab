package io.verglas.materializer.keyindex;

import java.util.stream.Stream;

/**
 * Where the key index keeps its pages and key group metas ({@link PageLayout}): keyed state,
 * under state keys that name their key group. One thread at a time uses it.
 */
interface IndexPageStore {
  /** The value stored under {@code key} of {@code keyGroup}, or null. */
  byte[] get(int keyGroup, String key) throws Exception;

  void put(int keyGroup, String key, byte[] value) throws Exception;

  void remove(int keyGroup, String key) throws Exception;

  /** Every state key stored (pages and metas); the caller closes the stream. */
  Stream<String> keys() throws Exception;
}
