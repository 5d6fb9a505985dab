package io.verglas.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The bearer tokens one server accepts: its static token (full access) and, when it has the
 * key, scoped tokens ({@link ScopedTokens}). The static token is compared as a SHA-256 digest
 * with {@link MessageDigest#isEqual}, in time independent of where a guess differs and of its
 * length.
 */
public final class BearerTokens {
  private static final String BEARER = "Bearer ";
  private final byte[] staticDigest;
  private final ScopedTokens scoped;

  /**
   * @param staticToken the token of full access
   * @param scoped verifies scoped tokens, or null when the server accepts none
   */
  public BearerTokens(String staticToken, ScopedTokens scoped) {
    if (staticToken == null || staticToken.isBlank()) {
      throw new IllegalArgumentException("Invalid token: blank");
    }
    if (ScopedTokens.isScoped(staticToken)) {
      throw new IllegalArgumentException("Invalid token: it starts with '" + ScopedTokens.PREFIX
          + "', the prefix of scoped tokens");
    }
    this.staticDigest = digest(staticToken);
    this.scoped = scoped;
  }

  /**
   * The access {@code presented} (the token, without {@code Bearer}) gives.
   *
   * @throws InvalidTokenException if it gives none
   */
  public Access authenticate(String presented) {
    if (ScopedTokens.isScoped(presented)) {
      if (scoped == null) {
        throw new InvalidTokenException(InvalidTokenException.Reason.UNKNOWN, "Invalid bearer "
            + "token: this server accepts no scoped tokens (it has no scoped token key)");
      }
      return Access.scoped(scoped.verify(presented));
    }
    if (presented == null || !MessageDigest.isEqual(staticDigest, digest(presented))) {
      throw new InvalidTokenException(InvalidTokenException.Reason.UNKNOWN,
          "Invalid bearer token");
    }
    return Access.FULL;
  }

  /**
   * The access an HTTP {@code Authorization} header value, {@code Bearer <token>}, gives.
   *
   * @throws InvalidTokenException if it is not a bearer token or gives none
   */
  public Access authenticateHeader(String authorization) {
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      throw new InvalidTokenException(InvalidTokenException.Reason.UNKNOWN,
          "Invalid credential: not 'Bearer <token>'");
    }
    return authenticate(authorization.substring(BEARER.length()).trim());
  }

  /** The SHA-256 digest a static token is compared by (with {@link MessageDigest#isEqual}). */
  public static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest a token: SHA-256 is missing", e);
    }
  }
}
