package io.verglas.cache;

import io.verglas.cache.iceberg.IcebergPaths;

/**
 * Tells which objects never change once written. A cache node resolves such an object's ETag
 * once and never revalidates it; every other object is revalidated (If-None-Match) after the
 * node's metadata TTL. Writes through the node invalidate either kind at once.
 *
 * <p>Getting this wrong for an object that is overwritten in place at the origin serves the old
 * version until the node forgets it; so only name objects that are immutable by contract.
 */
@FunctionalInterface
public interface ImmutableObjects {
  /** Nothing is immutable: every object is revalidated after the TTL. */
  ImmutableObjects NONE = (bucket, key) -> false;

  boolean isImmutable(String bucket, String key);

  /** Iceberg's immutable files, recognized by path (see {@link IcebergPaths}). */
  static ImmutableObjects icebergPaths() {
    return (bucket, key) -> IcebergPaths.isImmutable(key);
  }
}
