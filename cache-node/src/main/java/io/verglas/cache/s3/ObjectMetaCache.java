package io.verglas.cache.s3;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.verglas.cache.ImmutableObjects;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;

/**
 * Key → current {@link ObjectMeta} (and so the ETag every block of a read is pinned to).
 *
 * <p>Design: an entry records when its ETag was last confirmed by the origin. Immutable objects
 * (see {@link ImmutableObjects}) are confirmed once and never asked about again. Other objects
 * are trusted for the TTL; the first lookup after it revalidates with {@code If-None-Match} on
 * the cached ETag (one request; concurrent lookups of the key share it), and either renews the
 * entry (304) or replaces it with the new version. A TTL of zero revalidates every lookup of a
 * mutable object.
 *
 * <p>Writes through this node invalidate the key before they are acknowledged, so a client reads
 * its own writes whatever the TTL. The cached value is the in-flight future itself, so an
 * invalidation during a HEAD or revalidation also drops that request's (possibly stale) result.
 * Only successful lookups are cached: a missing key is asked again next time. Time comes from
 * the node's clock.
 */
final class ObjectMetaCache {
  private static final int MAX_ENTRIES = 200_000;

  private record Key(String bucket, String key) {}

  /** A version and when the origin last confirmed it (clock millis). */
  private record Entry(ObjectMeta meta, long confirmedAtMillis, boolean immutable) {}

  private final Origin origin;
  private final long ttlMillis;
  private final Clock clock;
  private final ImmutableObjects immutable;
  private final AsyncCache<Key, Entry> cache;
  private final LongAdder revalidations = new LongAdder();
  private final LongAdder notModified = new LongAdder();

  ObjectMetaCache(Origin origin, Duration ttl, Clock clock, ImmutableObjects immutable) {
    this.origin = origin;
    this.ttlMillis = ttl.toMillis();
    this.clock = clock;
    this.immutable = immutable;
    this.cache = Caffeine.newBuilder()
        .maximumSize(MAX_ENTRIES)
        .executor(Runnable::run)
        .buildAsync();
  }

  CompletableFuture<ObjectMeta> resolve(String bucket, String key) {
    Key k = new Key(bucket, key);
    while (true) {
      CompletableFuture<Entry> current = cache.getIfPresent(k);
      if (current == null) {
        CompletableFuture<Entry> mine = new CompletableFuture<>();
        if (cache.asMap().putIfAbsent(k, mine) != null) {
          continue;
        }
        return load(k, mine);
      }
      if (!current.isDone()) {
        // Join the lookup in flight; if it failed, ask again (failures are not shared or cached).
        return current.thenCompose(e -> e != null
            ? CompletableFuture.completedFuture(e.meta()) : resolve(bucket, key));
      }
      Entry entry = current.getNow(null);
      if (entry == null) {
        cache.asMap().remove(k, current);
        continue;
      }
      if (entry.immutable() || now() - entry.confirmedAtMillis() < ttlMillis) {
        return CompletableFuture.completedFuture(entry.meta());
      }
      CompletableFuture<Entry> next = new CompletableFuture<>();
      if (cache.asMap().replace(k, current, next)) {
        return revalidate(k, entry, next);
      }
      // Someone else replaced or removed it meanwhile: look again.
    }
  }

  /**
   * Asks the origin; completes the cached future {@code mine} with the entry, or with null after
   * removing it if the lookup failed. Cached futures never fail (Caffeine would log every
   * NoSuchKey); the caller's answer carries the error.
   */
  private CompletableFuture<ObjectMeta> load(Key k, CompletableFuture<Entry> mine) {
    CompletableFuture<ObjectMeta> head;
    try {
      head = origin.head(k.bucket(), k.key());
    } catch (RuntimeException e) {
      head = CompletableFuture.failedFuture(e);
    }
    return settle(k, mine, head.thenApply(meta ->
        new Entry(meta, now(), immutable.isImmutable(k.bucket(), k.key()))));
  }

  private CompletableFuture<ObjectMeta> revalidate(Key k, Entry stale, CompletableFuture<Entry> next) {
    revalidations.increment();
    CompletableFuture<java.util.Optional<ObjectMeta>> answer;
    try {
      answer = origin.revalidate(k.bucket(), k.key(), stale.meta().etag());
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    return settle(k, next, answer.thenApply(changed -> {
      if (changed.isEmpty()) {
        notModified.increment();
        // Immutability may have been learned since (from table metadata): ask again.
        return new Entry(stale.meta(), now(),
            stale.immutable() || immutable.isImmutable(k.bucket(), k.key()));
      }
      return new Entry(changed.get(), now(), immutable.isImmutable(k.bucket(), k.key()));
    }));
  }

  private CompletableFuture<ObjectMeta> settle(Key k, CompletableFuture<Entry> cached,
      CompletableFuture<Entry> outcome) {
    CompletableFuture<ObjectMeta> answer = new CompletableFuture<>();
    outcome.whenComplete((entry, error) -> {
      if (error != null) {
        cache.asMap().remove(k, cached);
        cached.complete(null);
        answer.completeExceptionally(error);
      } else {
        cached.complete(entry);
        answer.complete(entry.meta());
      }
    });
    return answer;
  }

  void invalidate(String bucket, String key) {
    cache.synchronous().invalidate(new Key(bucket, key));
  }

  /** Forgets every key of {@code bucket} matching the predicate; returns how many. */
  long purge(BiPredicate<String, String> matching) {
    long removed = 0;
    for (Key k : cache.asMap().keySet()) {
      if (matching.test(k.bucket(), k.key()) && cache.asMap().remove(k) != null) {
        removed++;
      }
    }
    return removed;
  }

  long revalidations() {
    return revalidations.sum();
  }

  long notModified() {
    return notModified.sum();
  }

  private long now() {
    Instant instant = clock.instant();
    return instant.toEpochMilli();
  }
}
