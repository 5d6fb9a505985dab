package io.verglas.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SessionCredentialsTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";
  private static final String OTHER_KEY = "fedcba9876543210fedcba9876543210";
  private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private static final List<ObjectGrant> GRANTS = List.of(
      ObjectGrant.readWrite("verglas-queues", "_queues/orders/"),
      ObjectGrant.read("verglas-queues", "_queues/audit/"));

  private final ScopedTokens tokens = new ScopedTokens(KEY, CLOCK);

  private static TableScope scope(Instant expiresAt) {
    return new TableScope("hourly/run-1", expiresAt, Set.of(), Set.of(), GRANTS);
  }

  @Test
  void objectGrantsRoundTripAndTokensWithoutThemGrantNone() {
    TableScope scope = tokens.verify(tokens.mint(scope(NOW.plusSeconds(60))));
    assertThat(scope.objects()).containsExactlyInAnyOrderElementsOf(GRANTS);
    TableScope tablesOnly = tokens.verify(tokens.mint(
        new TableScope("hourly/run-1", NOW.plusSeconds(60), Set.of(), Set.of())));
    assertThat(tablesOnly.objects()).isEmpty();
    String claims = new String(Base64.getUrlDecoder().decode(
        tokens.mint(tablesOnly).split("\\.")[1]), StandardCharsets.UTF_8);
    assertThat(claims).as("claims of a scope without objects keep their old form")
        .doesNotContain("objects");
    assertThatThrownBy(() -> tablesOnly.checkObject("verglas-queues", "_queues/orders/x", false))
        .isInstanceOf(AccessDeniedException.class).hasMessageContaining("grants only no objects");
  }

  @Test
  void aReadGrantOfAWritablePrefixIsDropped() {
    TableScope scope = new TableScope("s", NOW, Set.of(), Set.of(), List.of(
        ObjectGrant.read("b", "p/"), ObjectGrant.readWrite("b", "p/"), ObjectGrant.read("b", "p/"),
        ObjectGrant.read("a", "q/")));
    assertThat(scope.objects()).containsExactly(ObjectGrant.read("a", "q/"),
        ObjectGrant.readWrite("b", "p/"));
  }

  @Test
  void grantsReachTheirPrefixOnlyAndWriteOnlyWhereGranted() {
    TableScope scope = scope(NOW.plusSeconds(60));
    scope.checkObject("verglas-queues", "_queues/orders/00000000000000000001.vwal", true);
    scope.checkObject("verglas-queues", "_queues/audit/high-water", false);
    scope.checkListing("verglas-queues", "_queues/orders/");
    assertThatThrownBy(() -> scope.checkObject("verglas-queues", "_queues/audit/x", true))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessage("Cannot write object verglas-queues/_queues/audit/x: token for hourly/run-1 "
            + "grants only [read verglas-queues/_queues/audit/*, "
            + "read-write verglas-queues/_queues/orders/*]");
    assertThatThrownBy(() -> scope.checkObject("verglas-queues", "_queues/orders2/x", false))
        .isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(() -> scope.checkObject("warehouse", "_queues/orders/x", false))
        .isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(() -> scope.checkListing("verglas-queues", "_queues/"))
        .isInstanceOf(AccessDeniedException.class).hasMessageStartingWith(
            "Cannot list verglas-queues/_queues/*: token for hourly/run-1 grants only");
  }

  @Test
  void sessionCredentialsRoundTripThroughAnotherServerHoldingTheKey() {
    String token = tokens.mint(scope(NOW.plusSeconds(60)));
    SessionCredentials minted = tokens.session(token);
    assertThat(minted.sessionToken()).isEqualTo(token);
    assertThat(minted.accessKeyId()).matches("VGS[0-9A-F]{20}");
    assertThat(minted.secretAccessKey()).isNotBlank().doesNotContain(KEY);
    assertThat(minted.toString()).doesNotContain(minted.secretAccessKey());

    SessionCredentials server = new ScopedTokens(KEY, CLOCK)
        .verifySession(minted.accessKeyId(), token);
    assertThat(server.secretAccessKey()).isEqualTo(minted.secretAccessKey());
    assertThat(server.scope().objects()).containsExactlyInAnyOrderElementsOf(GRANTS);

    SessionCredentials other = tokens.session(tokens.mint(
        new TableScope("hourly/run-2", NOW.plusSeconds(60), Set.of(), Set.of(), GRANTS)));
    assertThat(other.accessKeyId()).isNotEqualTo(minted.accessKeyId());
    assertThat(other.secretAccessKey()).isNotEqualTo(minted.secretAccessKey());
  }

  @Test
  void aTamperedTokenIsRefused() {
    String token = tokens.mint(scope(NOW.plusSeconds(60)));
    String[] parts = token.split("\\.");
    String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
        .replace("_queues/audit/", "");
    String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
        .encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    assertThatThrownBy(() -> tokens.session(forged))
        .isInstanceOfSatisfying(InvalidTokenException.class, e ->
            assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.BAD_SIGNATURE));
    String otherKey = new ScopedTokens(OTHER_KEY, CLOCK).mint(scope(NOW.plusSeconds(60)));
    assertThatThrownBy(() -> tokens.verifySession(
        new ScopedTokens(OTHER_KEY, CLOCK).session(otherKey).accessKeyId(), otherKey))
        .isInstanceOf(InvalidTokenException.class).hasMessageContaining("bad signature");
  }

  @Test
  void aWrongAccessKeyIdIsRefused() {
    String token = tokens.mint(scope(NOW.plusSeconds(60)));
    String other = tokens.session(tokens.mint(new TableScope("hourly/run-2", NOW.plusSeconds(60),
        Set.of(), Set.of(), GRANTS))).accessKeyId();
    assertThatThrownBy(() -> tokens.verifySession(other, token))
        .isInstanceOfSatisfying(InvalidTokenException.class, e ->
            assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.BAD_SIGNATURE))
        .hasMessage("Invalid session credentials: access key id " + other
            + " is not the one of the session token of hourly/run-1");
    assertThatThrownBy(() -> tokens.verifySession(null, token))
        .isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void anExpiredTokenHasNoSession() {
    String token = tokens.mint(scope(NOW));
    assertThatThrownBy(() -> tokens.session(token))
        .isInstanceOfSatisfying(InvalidTokenException.class, e ->
            assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.EXPIRED));
  }

  @Test
  void afterARotationTheSecretIsStillDerivedWithTheKeyThatSignedTheToken() {
    String token = tokens.mint(scope(NOW.plusSeconds(60)));
    SessionCredentials before = tokens.session(token);
    ScopedTokens rotated = new ScopedTokens(OTHER_KEY, List.of(KEY), CLOCK);
    assertThat(rotated.verifySession(before.accessKeyId(), token).secretAccessKey())
        .isEqualTo(before.secretAccessKey());
  }

  @Test
  void malformedObjectGrantsAreMalformedClaims() {
    String claims = "{\"sub\":\"s\",\"exp-ms\":" + NOW.plusSeconds(60).toEpochMilli()
        + ",\"reads\":[],\"writes\":[],\"objects\":[[\"b\",\"p\",\"admin\"]]}";
    assertThatThrownBy(() -> TableScopeParser.fromJson(claims))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not [bucket, prefix, \"read\" or \"write\"]");
  }
}
