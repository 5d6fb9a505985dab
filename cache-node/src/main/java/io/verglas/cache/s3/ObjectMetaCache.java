package io.verglas.cache.s3;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * Key → current {@link ObjectMeta}, cached for a short TTL so that hot objects do not cost an
 * origin HEAD per GET; concurrent lookups of one key share one HEAD.
 *
 * <p>Writes through this node invalidate the key before they are acknowledged, so a client reads
 * its own writes. Writes made directly at the origin become visible within the TTL (0 disables
 * caching). Only successful lookups are cached: a missing key is asked again next time. The
 * cached entry is the in-flight future itself, so an invalidation during a HEAD also drops that
 * HEAD's (possibly stale) result. Time comes from the node's clock.
 */
final class ObjectMetaCache {
  private record Key(String bucket, String key) {}

  private final Origin origin;
  private final AsyncCache<Key, ObjectMeta> cache;

  ObjectMetaCache(Origin origin, Duration ttl, Clock clock) {
    this.origin = origin;
    this.cache = ttl.isZero()
        ? null
        : Caffeine.newBuilder()
            .maximumSize(100_000)
            .expireAfterWrite(ttl)
            .ticker(ticker(clock))
            .executor(Runnable::run)
            .buildAsync();
  }

  CompletableFuture<ObjectMeta> resolve(String bucket, String key) {
    if (cache == null) {
      return origin.head(bucket, key);
    }
    return cache.get(new Key(bucket, key), (k, executor) -> origin.head(k.bucket(), k.key()));
  }

  void invalidate(String bucket, String key) {
    if (cache != null) {
      cache.synchronous().invalidate(new Key(bucket, key));
    }
  }

  private static Ticker ticker(Clock clock) {
    return () -> {
      Instant now = clock.instant();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };
  }
}
