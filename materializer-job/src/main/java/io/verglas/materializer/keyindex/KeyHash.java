package io.verglas.materializer.keyindex;

/**
 * The 64-bit hash of primary-key bytes that places a key in the key index's pages and in the
 * per-checkpoint buffers: FNV-1a, then MurmurHash3's finalizer, so that every bit is well mixed.
 */
public final class KeyHash {
  private KeyHash() {}

  public static long of(byte[] key) {
    return of(key, 0, key.length);
  }

  /** {@link #of(byte[])} of the key bytes {@code bytes[from, from + length)}. */
  public static long of(byte[] bytes, int from, int length) {
    long h = 0xcbf29ce484222325L;
    for (int i = from; i < from + length; i++) {
      h = (h ^ (bytes[i] & 0xff)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }
}
