package io.verglas.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.table.TableIdentifiers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class ScopedTokensTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";
  private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private static final TableIdentifier ORDERS = TableIdentifiers.identifier("shop.orders");
  private static final TableIdentifier DOTTED = TableIdentifier.of(Namespace.of("shop"), "orders.v2");
  private static final TableIdentifier NESTED = TableIdentifier.of(Namespace.of("shop", "orders"),
      "v2");

  private final ScopedTokens tokens = new ScopedTokens(KEY, CLOCK);

  private static TableScope scope(Set<TableIdentifier> reads, Set<TableIdentifier> writes) {
    return new TableScope("hourly/cron:2026-12-04T11", NOW.plusSeconds(60), reads, writes);
  }

  @Test
  void aMintedTokenVerifiesToItsScopeWithWritesReadable() {
    String token = tokens.mint(scope(Set.of(ORDERS), Set.of(DOTTED)));
    assertThat(token).startsWith("vgs1.");
    assertThat(ScopedTokens.isScoped(token)).isTrue();
    TableScope scope = tokens.verify(token);
    assertThat(scope).isEqualTo(scope(Set.of(ORDERS), Set.of(DOTTED)));
    assertThat(scope.reads()).containsExactlyInAnyOrder(ORDERS, DOTTED);
    assertThat(scope.mayWrite(DOTTED)).isTrue();
    assertThat(scope.mayWrite(ORDERS)).isFalse();
  }

  @Test
  void aDottedTableNameIsNotTheTableOfTheNestedNamespace() {
    TableScope scope = tokens.verify(tokens.mint(scope(Set.of(), Set.of(DOTTED))));
    assertThat(scope.mayWrite(DOTTED)).isTrue();
    assertThat(scope.mayRead(NESTED)).isFalse();
    assertThatThrownBy(() -> scope.checkWrite(NESTED))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessage("Cannot write table shop.orders.v2: token for hourly/cron:2026-12-04T11 "
            + "grants writes only on [shop.`orders.v2`]");
  }

  @Test
  void randomScopesRoundTrip() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 200; i++) {
      TableScope scope = scope(randomTables(random), randomTables(random));
      assertThat(tokens.verify(tokens.mint(scope))).as("seed %d", seed).isEqualTo(scope);
      assertThat(tokens.mint(scope)).as("seed %d: one encoding per scope", seed)
          .isEqualTo(tokens.mint(new TableScope(scope.subject(), scope.expiresAt(),
              scope.reads(), scope.writes())));
    }
  }

  @Test
  void alteredClaimsAreRefusedAsBadlySigned() {
    String token = tokens.mint(scope(Set.of(ORDERS), Set.of()));
    String[] parts = token.split("\\.");
    String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
    String forged = claims.replace("\"reads\":[", "\"writes\":[[\"shop\",\"orders\"]],\"x\":[");
    String altered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
        .encodeToString(forged.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    assertBadSignature(altered);
    // one flipped character of the signature
    char last = token.charAt(token.length() - 1);
    assertBadSignature(token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A'));
  }

  @Test
  void aTokenOfAnotherKeyIsRefused() {
    String token = new ScopedTokens("another-key-of-thirty-two-chars!", CLOCK)
        .mint(scope(Set.of(ORDERS), Set.of()));
    assertBadSignature(token);
  }

  @Test
  void aRotatedVerifierAcceptsTokensOfThePreviousKeyAndMintsWithTheNewOne() {
    String newKey = "fedcba9876543210fedcba9876543210";
    ScopedTokens rotated = new ScopedTokens(newKey, List.of(KEY), CLOCK);
    String old = tokens.mint(scope(Set.of(ORDERS), Set.of()));
    assertThat(rotated.verify(old)).isEqualTo(scope(Set.of(ORDERS), Set.of()));
    String fresh = rotated.mint(scope(Set.of(ORDERS), Set.of()));
    assertThat(new ScopedTokens(newKey, CLOCK).verify(fresh)).isEqualTo(scope(Set.of(ORDERS), Set.of()));
    assertBadSignature(fresh); // minted with the new key, which the old verifier does not know
    // Dropping the previous key revokes every token minted before the rotation.
    assertThatThrownBy(() -> new ScopedTokens(newKey, CLOCK).verify(old))
        .isInstanceOf(InvalidTokenException.class).hasMessageContaining("bad signature");
  }

  @Test
  void previousKeysAreBoundedDistinctFromTheCurrentAndReadFromTheEnvironment() {
    String other = "fedcba9876543210fedcba9876543210";
    assertThatThrownBy(() -> new ScopedTokens(KEY, List.of(KEY), CLOCK))
        .hasMessage("Invalid previous scoped token keys: one of them is the current key");
    assertThatThrownBy(() -> new ScopedTokens(KEY, List.of("short"), CLOCK))
        .hasMessage("Invalid previous scoped token key: it needs at least 32 characters, got 5");
    assertThatThrownBy(() -> new ScopedTokens(KEY, java.util.Collections.nCopies(5, other), CLOCK))
        .hasMessage("Invalid previous scoped token keys: at most 4, got 5");
    assertThat(ScopedTokens.fromEnvironment(java.util.Map.of(), CLOCK)).isEmpty();
    ScopedTokens fromEnv = ScopedTokens.fromEnvironment(java.util.Map.of(ScopedTokens.KEY_ENV, other,
        ScopedTokens.PREVIOUS_KEYS_ENV, " " + KEY + " , "), CLOCK).orElseThrow();
    assertThat(fromEnv.previousKeyCount()).isEqualTo(1);
    assertThat(fromEnv.verify(tokens.mint(scope(Set.of(ORDERS), Set.of())))).isNotNull();
    assertThat(fromEnv.toString()).doesNotContain(KEY).doesNotContain(other);
  }

  @Test
  void anExpiredTokenIsRefusedFromItsExpiryOn() {
    String token = tokens.mint(scope(Set.of(ORDERS), Set.of()));
    ScopedTokens later = new ScopedTokens(KEY, Clock.offset(CLOCK, Duration.ofSeconds(60)));
    assertThatThrownBy(() -> later.verify(token))
        .isInstanceOfSatisfying(InvalidTokenException.class,
            e -> assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.EXPIRED))
        .hasMessage("Invalid scoped token: token for hourly/cron:2026-12-04T11 expired at "
            + "2026-12-04T12:01:00Z");
    assertThat(new ScopedTokens(KEY, Clock.offset(CLOCK, Duration.ofSeconds(59))).verify(token))
        .isNotNull();
  }

  @Test
  void malformedTokensAreRefusedAsSuch() {
    for (String token : List.of("vgs1.", "vgs1.abc", "vgs1.!!!.abc", "vgs2.a.b", "secret",
        "vgs1." + "a".repeat(ScopedTokens.MAX_TOKEN_CHARS))) {
      assertThatThrownBy(() -> tokens.verify(token)).as(token)
          .isInstanceOfSatisfying(InvalidTokenException.class,
              e -> assertThat(e.reason()).isIn(InvalidTokenException.Reason.MALFORMED,
                  InvalidTokenException.Reason.BAD_SIGNATURE))
          .hasMessageStartingWith("Invalid scoped token: ");
    }
    // correctly signed claims that are not a scope
    String signed = "vgs1." + Base64.getUrlEncoder().withoutPadding()
        .encodeToString("{\"sub\":\"x\"}".getBytes(StandardCharsets.UTF_8));
    String token = tokens.mint(scope(Set.of(), Set.of()));
    assertThatThrownBy(() -> tokens.verify(signed + token.substring(token.lastIndexOf('.'))))
        .isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void aShortKeyOrAScopeTooLargeForAHeaderIsRefused() {
    assertThatThrownBy(() -> new ScopedTokens("short", CLOCK))
        .hasMessage("Invalid scoped token key: it needs at least 32 characters, got 5");
    Set<TableIdentifier> many = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      many.add(TableIdentifier.of("shop", "table_" + i));
    }
    assertThatThrownBy(() -> tokens.mint(scope(many, Set.of())))
        .hasMessageContaining("Cannot mint a token for hourly/cron:2026-12-04T11: its 500 tables");
  }

  @Test
  void bearerTokensTellStaticAndScopedTokensApart() {
    BearerTokens bearer = new BearerTokens("static-token", tokens);
    assertThat(bearer.authenticate("static-token")).isSameAs(Access.FULL);
    Access scoped = bearer.authenticate(tokens.mint(scope(Set.of(ORDERS), Set.of())));
    assertThat(scoped.mayRead(ORDERS)).isTrue();
    assertThatThrownBy(() -> scoped.checkWrite(ORDERS)).isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(() -> scoped.checkAdmin("create-table"))
        .hasMessage("Cannot create-table: token for hourly/cron:2026-12-04T11 is scoped to "
            + "tables; only the stack's token may create-table");
    assertThatThrownBy(() -> bearer.authenticate("static-tokeN"))
        .hasMessage("Invalid bearer token");
    assertThatThrownBy(() -> new BearerTokens("static-token", null)
        .authenticate(tokens.mint(scope(Set.of(), Set.of()))))
        .hasMessageContaining("accepts no scoped tokens");
    assertThatThrownBy(() -> new BearerTokens("vgs1.x", tokens))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private void assertBadSignature(String token) {
    assertThatThrownBy(() -> tokens.verify(token))
        .isInstanceOfSatisfying(InvalidTokenException.class,
            e -> assertThat(e.reason()).isEqualTo(InvalidTokenException.Reason.BAD_SIGNATURE))
        .hasMessage("Invalid scoped token: bad signature (minted with another key, or altered)");
  }

  /** Up to four tables of random levels, dots and backquotes included. */
  private static Set<TableIdentifier> randomTables(Random random) {
    String alphabet = "ab.`é_";
    Set<TableIdentifier> tables = new HashSet<>();
    for (int t = random.nextInt(5); t > 0; t--) {
      List<String> levels = new ArrayList<>();
      for (int l = 2 + random.nextInt(2); l > 0; l--) {
        StringBuilder level = new StringBuilder();
        for (int c = 1 + random.nextInt(4); c > 0; c--) {
          level.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        levels.add(level.toString());
      }
      tables.add(TableIdentifiers.identifier(levels));
    }
    return tables;
  }
}
