package io.verglas.cache.s3;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.verglas.access.InvalidTokenException;
import io.verglas.access.ScopedTokens;
import io.verglas.access.SessionCredentials;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * Session tokens verified recently, so a worker's stream of requests costs one signature check and
 * one JSON parse per token rather than per request.
 *
 * <p>Design. Keyed by the token itself: the entry's credentials hold that same string as their
 * session token, so the key costs no memory of its own, and a hit is an exact match of the whole
 * token (its hash and equality), so only the token that was verified is served from the cache.
 * Only tokens that verified are stored: a forged one is checked (and refused) every time.
 * A hit is still checked against the clock and the presented access key id
 * ({@link ScopedTokens#checkSession}), so an entry never outlives its token's validity: an expired
 * token is refused ({@code EXPIRED}) whether cached or not, and its entry dropped. Entries are
 * evicted at the token's expiry and after at most {@link #MAX_AGE}, and the cache is bounded in
 * entries (0 turns it off). It holds nothing authoritative: losing it costs one verification.
 */
final class VerifiedSessions {
  /** Longest time an entry is kept, whatever its token's expiry. */
  static final Duration MAX_AGE = Duration.ofSeconds(60);

  private final ScopedTokens tokens;
  private final Clock clock;
  private final Cache<String, SessionCredentials> cache;
  private final LongAdder hits = new LongAdder();

  VerifiedSessions(ScopedTokens tokens, Clock clock, int maxEntries) {
    if (maxEntries < 0) {
      throw new IllegalArgumentException("Invalid session cache size: " + maxEntries
          + " (must be >= 0)");
    }
    this.tokens = tokens;
    this.clock = clock;
    this.cache = Caffeine.newBuilder()
        .maximumSize(maxEntries)
        .expireAfter(Expiry.creating(this::lifetime))
        .executor(Runnable::run)
        .build();
  }

  /**
   * The credentials of a request that presented {@code accessKeyId} with session token
   * {@code token}.
   *
   * @throws InvalidTokenException as {@link ScopedTokens#verifySession}
   */
  SessionCredentials verify(String accessKeyId, String token) {
    SessionCredentials cached = cache.getIfPresent(token);
    if (cached == null) {
      SessionCredentials verified = tokens.verifySession(accessKeyId, token);
      cache.put(verified.sessionToken(), verified);
      return verified;
    }
    hits.increment();
    try {
      return tokens.checkSession(cached, accessKeyId);
    } catch (InvalidTokenException e) {
      if (e.reason() == InvalidTokenException.Reason.EXPIRED) {
        cache.invalidate(token);
      }
      throw e;
    }
  }

  /** Requests answered from the cache (without verifying the token's signature again). */
  long hits() {
    return hits.sum();
  }

  private Duration lifetime(String token, SessionCredentials credentials) {
    Duration left = Duration.between(clock.instant(), credentials.scope().expiresAt());
    if (left.isNegative()) {
      return Duration.ZERO;
    }
    return left.compareTo(MAX_AGE) < 0 ? left : MAX_AGE;
  }
}
