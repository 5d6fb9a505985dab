package io.verglas.cache.cluster.placement;

import java.nio.charset.StandardCharsets;

/**
 * Capacity-weighted rendezvous (highest random weight) scores.
 *
 * <p>Design: each (key, member) pair gets a pseudo-random {@code u} in (0, 1) from a 64-bit hash
 * of the key's hash and the member's id hash; the member's score is {@code -capacity / ln(u)}
 * and the highest score owns the key. {@code -ln(u) / capacity} is exponentially distributed
 * with rate {@code capacity}, and the smallest of independent exponentials is member i's with
 * probability {@code capacity_i / sum(capacity)}: shares follow capacity exactly in expectation
 * (Schindelhauer and Schomaker, "Weighted distributed hash tables", SPAA 2005; Resch's
 * "logarithmic method"). A member's score for a key does not depend on the other members, so
 * adding or removing one member moves only the keys whose winner it becomes or was. Hashes are
 * FNV-1a over UTF-8 bytes with the MurmurHash3 64-bit finalizer: stable across JVMs and
 * versions (every node must compute the same owner), and cheap (no allocation per member).
 */
public final class Rendezvous {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final double TWO_POW_MINUS_53 = 0x1.0p-53;

  private Rendezvous() {}

  /** The hash of an object's name, computed once per lookup. */
  public static long keyHash(String bucket, String key) {
    long h = FNV_OFFSET;
    h = fnv(h, bucket);
    h = (h ^ 0xff) * FNV_PRIME; // separator: ("ab","c") and ("a","bc") differ
    return mix(fnv(h, key));
  }

  /** The hash of a member's id. */
  public static long memberHash(String id) {
    return mix(fnv(FNV_OFFSET ^ 0x5bd1e995L, id));
  }

  /** The member's score for the key; the highest score owns it. */
  public static double score(long keyHash, long memberHash, long capacity) {
    long h = mix(keyHash ^ Long.rotateLeft(memberHash, 29) ^ 0x9e3779b97f4a7c15L);
    double u = ((h >>> 11) + 0.5) * TWO_POW_MINUS_53; // in (0, 1), never 0 or 1
    return -capacity / Math.log(u);
  }

  private static long fnv(long h, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (byte b : bytes) {
      h = (h ^ (b & 0xff)) * FNV_PRIME;
    }
    return h;
  }

  /** MurmurHash3's fmix64. */
  private static long mix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }
}
