package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.access.InvalidTokenException;
import io.verglas.access.ObjectGrant;
import io.verglas.access.ScopedTokens;
import io.verglas.access.SessionCredentials;
import io.verglas.access.TableScope;
import io.verglas.cache.TestingClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The cache of verified session tokens: a hit skips the signature check but never the token's
 * expiry or its access key id, and a token that did not verify is never cached.
 */
class VerifiedSessionsTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";

  private final TestingClock clock = new TestingClock();
  private final ScopedTokens tokens = new ScopedTokens(KEY, clock);

  private SessionCredentials session(Duration valid) {
    return tokens.session(tokens.mint(new TableScope("hourly/run-1", clock.instant().plus(valid),
        Set.of(), Set.of(), List.of(ObjectGrant.readWrite("warehouse", "_queues/orders/")))));
  }

  @Test
  void aCachedTokenIsRefusedOnceItExpired() {
    VerifiedSessions sessions = new VerifiedSessions(tokens, clock, 100);
    SessionCredentials c = session(Duration.ofSeconds(30));
    assertThat(sessions.verify(c.accessKeyId(), c.sessionToken()).secretAccessKey())
        .isEqualTo(c.secretAccessKey());
    assertThat(sessions.verify(c.accessKeyId(), c.sessionToken()).scope()).isEqualTo(c.scope());
    assertThat(sessions.hits()).isEqualTo(1);

    clock.shift(Duration.ofSeconds(31));
    assertThatThrownBy(() -> sessions.verify(c.accessKeyId(), c.sessionToken()))
        .isInstanceOfSatisfying(InvalidTokenException.class, e ->
            assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.EXPIRED))
        .hasMessageContaining("expired at");
    assertThat(sessions.hits()).as("refused from the cache").isEqualTo(2);
    assertThatThrownBy(() -> sessions.verify(c.accessKeyId(), c.sessionToken()))
        .isInstanceOf(InvalidTokenException.class).hasMessageContaining("expired at");
    assertThat(sessions.hits()).as("the expired entry was dropped").isEqualTo(2);
  }

  @Test
  void aCachedTokenPresentedWithAnotherAccessKeyIdIsRefused() {
    VerifiedSessions sessions = new VerifiedSessions(tokens, clock, 100);
    SessionCredentials c = session(Duration.ofMinutes(5));
    sessions.verify(c.accessKeyId(), c.sessionToken());
    assertThatThrownBy(() -> sessions.verify("VGS00000000000000000000", c.sessionToken()))
        .isInstanceOfSatisfying(InvalidTokenException.class, e ->
            assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.BAD_SIGNATURE))
        .hasMessageContaining("is not the one of the session token");
    assertThat(sessions.hits()).isEqualTo(1);
  }

  @Test
  void aForgedTokenIsNeverCached() {
    VerifiedSessions sessions = new VerifiedSessions(tokens, clock, 100);
    SessionCredentials c = session(Duration.ofMinutes(5));
    String forged = c.sessionToken().substring(0, c.sessionToken().length() - 2) + "AA";
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> sessions.verify(c.accessKeyId(), forged))
          .isInstanceOf(InvalidTokenException.class).hasMessageContaining("bad signature");
    }
    assertThat(sessions.hits()).isZero();
  }

  @Test
  void aCacheOfNoEntriesVerifiesEveryTime() {
    VerifiedSessions sessions = new VerifiedSessions(tokens, clock, 0);
    SessionCredentials c = session(Duration.ofMinutes(5));
    sessions.verify(c.accessKeyId(), c.sessionToken());
    sessions.verify(c.accessKeyId(), c.sessionToken());
    assertThat(sessions.hits()).isZero();
    assertThatThrownBy(() -> new VerifiedSessions(tokens, clock, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid session cache size: -1 (must be >= 0)");
  }
}
