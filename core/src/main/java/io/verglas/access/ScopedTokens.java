package io.verglas.access;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints and verifies scoped tokens: bearer tokens that carry their own {@link TableScope},
 * signed with a key the minter and the servers share, so a server checks one without asking
 * anyone.
 *
 * <p>Design. Format {@code vgs1.<claims>.<mac>}: {@code vgs1} names the version (a later format
 * gets another prefix, and this build refuses it as malformed rather than guessing),
 * {@code claims} is the base64url (unpadded) JSON of {@link TableScopeParser}, {@code mac} the
 * base64url HMAC-SHA256 of {@code vgs1.<claims>} under the key. The static tokens of a stack are
 * hex or other text without this prefix, so a server tells the two kinds apart by the prefix
 * alone ({@link #isScoped}). The signature is checked (in constant time) before the claims are
 * parsed, so nothing of an unsigned token is interpreted; expiry is checked last, against the
 * injected clock. A token is at most {@link #MAX_TOKEN_CHARS} characters: it travels in a header
 * (gRPC's default metadata limit is 8 KiB), so minting a scope that does not fit fails rather
 * than handing out a token no server can receive.
 *
 * <p>Rotation and revocation. A token is revoked by its expiry, or by its key leaving the
 * servers. Tokens are minted with the current key only; a verifier also accepts up to
 * {@value #MAX_PREVIOUS_KEYS} previous keys, so a rotation (new current key, the old one kept as
 * previous) leaves tokens already handed out working until they expire, and dropping the
 * previous keys revokes every token minted before the rotation at once. Keep expiries short.
 *
 * <p>S3 sessions. A token is also the session token of STS-style S3 credentials
 * ({@link #session}): their secret is derived from the token with the key that signed it, so the
 * cache node's S3 endpoint re-derives it from the presented token ({@link #verifySession}),
 * checks the request's signature with it and grants what {@link TableScope#objects()} holds.
 */
public final class ScopedTokens {
  public static final String PREFIX = "vgs1.";
  /** The environment variable standalone servers read the key from (never an argument). */
  public static final String KEY_ENV = "VERGLAS_SCOPED_TOKEN_KEY";
  /** Previous keys, comma-separated, still accepted for verification (never used to mint). */
  public static final String PREVIOUS_KEYS_ENV = "VERGLAS_SCOPED_TOKEN_PREVIOUS_KEYS";
  public static final int MAX_PREVIOUS_KEYS = 4;
  /** Characters of key text a minter needs (32 characters: 256 bits when they are random hex). */
  public static final int MIN_KEY_CHARS = 32;
  public static final int MAX_TOKEN_CHARS = 6 * 1024;
  private static final String ALGORITHM = "HmacSHA256";
  private static final String SESSION_SECRET = "s3-secret\n";
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final SecretKeySpec key;
  private final List<SecretKeySpec> previousKeys;
  private final Clock clock;

  /** Tokens signed with {@code key} (text of at least {@value #MIN_KEY_CHARS} characters). */
  public ScopedTokens(String key, Clock clock) {
    this(key, List.of(), clock);
  }

  /**
   * Tokens signed with {@code key}; tokens signed with one of {@code previousKeys} (at most
   * {@value #MAX_PREVIOUS_KEYS}) are accepted too.
   */
  public ScopedTokens(String key, List<String> previousKeys, Clock clock) {
    this.key = keySpec(key, "scoped token key");
    if (previousKeys.size() > MAX_PREVIOUS_KEYS) {
      throw new IllegalArgumentException("Invalid previous scoped token keys: at most "
          + MAX_PREVIOUS_KEYS + ", got " + previousKeys.size());
    }
    List<SecretKeySpec> previous = new ArrayList<>();
    for (String text : previousKeys) {
      if (key.equals(text)) {
        throw new IllegalArgumentException("Invalid previous scoped token keys: one of them is the "
            + "current key");
      }
      previous.add(keySpec(text, "previous scoped token key"));
    }
    this.previousKeys = List.copyOf(previous);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * The verifier a standalone server configures from {@value #KEY_ENV} and
   * {@value #PREVIOUS_KEYS_ENV} in {@code environment}; empty without a current key.
   */
  public static Optional<ScopedTokens> fromEnvironment(Map<String, String> environment, Clock clock) {
    String current = environment.get(KEY_ENV);
    if (current == null || current.isBlank()) {
      return Optional.empty();
    }
    String previous = environment.getOrDefault(PREVIOUS_KEYS_ENV, "");
    List<String> keys = Arrays.stream(previous.split(",")).map(String::trim)
        .filter(k -> !k.isEmpty()).toList();
    return Optional.of(new ScopedTokens(current, keys, clock));
  }

  /** How many previous keys this verifier accepts besides the current one. */
  public int previousKeyCount() {
    return previousKeys.size();
  }

  private static SecretKeySpec keySpec(String key, String what) {
    if (key == null || key.isBlank() || key.length() < MIN_KEY_CHARS) {
      throw new IllegalArgumentException("Invalid " + what + ": it needs at least "
          + MIN_KEY_CHARS + " characters, got " + (key == null ? 0 : key.length()));
    }
    return new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), ALGORITHM);
  }

  /** Whether {@code token} has the form of a scoped token (of any version this build knows). */
  public static boolean isScoped(String token) {
    return token != null && token.startsWith(PREFIX);
  }

  public String mint(TableScope scope) {
    String signed = PREFIX + ENCODER.encodeToString(
        TableScopeParser.toJson(scope).getBytes(StandardCharsets.UTF_8));
    String token = signed + "." + ENCODER.encodeToString(mac(key, signed));
    if (token.length() > MAX_TOKEN_CHARS) {
      throw new IllegalArgumentException("Cannot mint a token for " + scope.subject() + ": its "
          + scope.reads().size() + " tables and " + scope.objects().size() + " object grants make "
          + token.length() + " characters, over " + MAX_TOKEN_CHARS
          + " (tokens travel in a request header)");
    }
    return token;
  }

  /**
   * The scope of {@code token}.
   *
   * @throws InvalidTokenException if it is malformed, not signed with this key, or expired
   */
  public TableScope verify(String token) {
    return verified(token).scope();
  }

  /**
   * The S3 session credentials of {@code token} (a valid one): access key id {@code VGS} and 20
   * hex digits of the token's SHA-256, secret the base64url HMAC-SHA256 of
   * {@code "s3-secret\n" + token} under the key that signed the token, session token the token.
   * Only holders of that key can compute the secret; any of them re-derives it.
   *
   * @throws InvalidTokenException as {@link #verify}
   */
  public SessionCredentials session(String token) {
    Verified verified = verified(token);
    return new SessionCredentials(accessKeyId(token),
        ENCODER.encodeToString(mac(verified.key(), SESSION_SECRET + token)), token,
        verified.scope());
  }

  /**
   * The credentials of a request that presented {@code accessKeyId} with session token
   * {@code token}: the server checks its signature with their secret, its objects against their
   * scope.
   *
   * @throws InvalidTokenException as {@link #verify}, or (BAD_SIGNATURE) if the access key id is
   *     not the token's
   */
  public SessionCredentials verifySession(String accessKeyId, String token) {
    return checkSession(session(token), accessKeyId);
  }

  /**
   * Credentials this verifier derived earlier ({@link #session}, {@link #verifySession}), checked
   * again for another request: still unexpired, presented with their access key id. A server
   * caching verified tokens calls this on every hit instead of re-verifying the signature.
   *
   * @throws InvalidTokenException (EXPIRED) once the token expired, (BAD_SIGNATURE) if the access
   *     key id is not the token's
   */
  public SessionCredentials checkSession(SessionCredentials credentials, String accessKeyId) {
    checkUnexpired(credentials.scope());
    if (!MessageDigest.isEqual(credentials.accessKeyId().getBytes(StandardCharsets.UTF_8),
        String.valueOf(accessKeyId).getBytes(StandardCharsets.UTF_8))) {
      throw new InvalidTokenException(InvalidTokenException.Reason.BAD_SIGNATURE, "Invalid "
          + "session credentials: access key id " + accessKeyId + " is not the one of the session"
          + " token of " + credentials.scope().subject());
    }
    return credentials;
  }

  private static String accessKeyId(String token) {
    return SessionCredentials.ACCESS_KEY_PREFIX
        + HexFormat.of().withUpperCase().formatHex(BearerTokens.digest(token), 0, 10);
  }

  private record Verified(TableScope scope, SecretKeySpec key) {}

  private Verified verified(String token) {
    if (!isScoped(token) || token.length() > MAX_TOKEN_CHARS) {
      throw malformed("not a " + PREFIX + "<claims>.<mac> token of at most " + MAX_TOKEN_CHARS
          + " characters");
    }
    int dot = token.lastIndexOf('.');
    if (dot < PREFIX.length()) {
      throw malformed("no signature part");
    }
    String signed = token.substring(0, dot);
    byte[] presented = decode(token.substring(dot + 1), "signature");
    SecretKeySpec signer = signerOf(signed, presented);
    if (signer == null) {
      throw new InvalidTokenException(InvalidTokenException.Reason.BAD_SIGNATURE,
          "Invalid scoped token: bad signature (minted with another key, or altered)");
    }
    TableScope scope;
    try {
      scope = TableScopeParser.fromJson(new String(decode(signed.substring(PREFIX.length()),
          "claims"), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw malformed(e.getMessage());
    }
    checkUnexpired(scope);
    return new Verified(scope, signer);
  }

  private void checkUnexpired(TableScope scope) {
    if (!clock.instant().isBefore(scope.expiresAt())) {
      throw new InvalidTokenException(InvalidTokenException.Reason.EXPIRED, "Invalid scoped "
          + "token: token for " + scope.subject() + " expired at " + scope.expiresAt());
    }
  }

  /**
   * The key, current or previous, whose signature {@code presented} is, or null; compares against
   * every key whatever matches first (no early exit).
   */
  private SecretKeySpec signerOf(String signed, byte[] presented) {
    SecretKeySpec signer = MessageDigest.isEqual(mac(key, signed), presented) ? key : null;
    for (SecretKeySpec previous : previousKeys) {
      if (MessageDigest.isEqual(mac(previous, signed), presented) && signer == null) {
        signer = previous;
      }
    }
    return signer;
  }

  private static byte[] mac(SecretKeySpec key, String signed) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot sign a token: " + ALGORITHM + " is unavailable", e);
    }
  }

  private static byte[] decode(String part, String what) {
    try {
      return DECODER.decode(part);
    } catch (IllegalArgumentException e) {
      throw malformed("its " + what + " is not base64url");
    }
  }

  private static InvalidTokenException malformed(String why) {
    return new InvalidTokenException(InvalidTokenException.Reason.MALFORMED,
        "Invalid scoped token: malformed (" + why + ")");
  }

  @Override
  public String toString() {
    return "ScopedTokens[key redacted, " + previousKeys.size() + " previous]"; // never a key
  }
}
