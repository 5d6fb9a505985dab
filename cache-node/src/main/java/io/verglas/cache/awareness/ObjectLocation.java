package io.verglas.cache.awareness;

import java.util.Locale;
import java.util.Set;

/**
 * A bucket and key parsed from a location in table metadata ({@code s3://bucket/key}; the
 * {@code s3a} and {@code s3n} spellings of Hadoop-based writers too). The cache node serves
 * buckets by name, so these are the only locations it can read through its caches.
 */
record ObjectLocation(String bucket, String key) {
  private static final Set<String> SCHEMES = Set.of("s3", "s3a", "s3n");

  /** The bucket and key of {@code location}; IllegalArgumentException if it names none. */
  static ObjectLocation parse(String location) {
    int colon = location.indexOf("://");
    if (colon <= 0 || !SCHEMES.contains(location.substring(0, colon).toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("Cannot read " + location
          + ": not an s3:// location (the cache node serves buckets)");
    }
    int slash = location.indexOf('/', colon + 3);
    if (slash < 0 || slash == colon + 3 || slash == location.length() - 1) {
      throw new IllegalArgumentException("Cannot read " + location + ": no bucket and key");
    }
    String key = location.substring(slash + 1);
    while (key.startsWith("/")) {
      key = key.substring(1); // "s3://bucket//key" as some writers join paths
    }
    return new ObjectLocation(location.substring(colon + 3, slash), key);
  }
}
