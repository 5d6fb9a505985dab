package io.verglas.events.feed;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * Who may publish to and read from a change feed (and the admin endpoint serving it), by bearer
 * token ({@code Authorization: Bearer <token>}).
 *
 * <p>Publishing needs the publish token: consumers trust the feed, so a forged event must not
 * get in. Reading needs the read token or the publish token (the jobs that publish also read),
 * unless reads are public. Tokens are compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, in time independent of where a guess differs and of its length.
 */
public final class FeedAccess {
  /** What a request needs. */
  public enum Need { NONE, READ, PUBLISH }

  /** The answer to a request's credential; {@link #status()} is the HTTP status to refuse with. */
  public enum Decision {
    ALLOWED(200, null),
    MISSING(401, "no bearer token (send Authorization: Bearer <token>)"),
    WRONG(403, "the bearer token does not grant this");

    private final int status;
    private final String reason;

    Decision(int status, String reason) {
      this.status = status;
      this.reason = reason;
    }

    public int status() {
      return status;
    }

    public String reason() {
      return reason;
    }
  }

  private static final String BEARER = "Bearer ";
  private final byte[] publishDigest;
  private final byte[] readDigest;
  private final boolean publicReads;

  private FeedAccess(byte[] publishDigest, byte[] readDigest, boolean publicReads) {
    this.publishDigest = publishDigest;
    this.readDigest = readDigest;
    this.publicReads = publicReads;
  }

  /**
   * Publishing with {@code publishToken}; reading with {@code readToken} or
   * {@code publishToken}, or by anyone when {@code publicReads}.
   */
  public static FeedAccess tokens(String publishToken, String readToken, boolean publicReads) {
    if (token(publishToken, "publish").equals(token(readToken, "read"))) {
      throw new IllegalArgumentException(
          "Invalid read token: it equals the publish token, so readers could publish");
    }
    return new FeedAccess(digest(publishToken), digest(readToken), publicReads);
  }

  /** No credentials at all: anyone may publish and read. Only for in-process tests. */
  public static FeedAccess open() {
    return new FeedAccess(null, null, true);
  }

  public boolean publicReads() {
    return publicReads;
  }

  /** Decides on a request needing {@code need} that sent {@code authorization} (may be null). */
  public Decision check(Need need, String authorization) {
    if (need == Need.NONE || publishDigest == null || (need == Need.READ && publicReads)) {
      return Decision.ALLOWED;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Decision.MISSING;
    }
    byte[] presented = digest(authorization.substring(BEARER.length()).trim());
    boolean publisher = MessageDigest.isEqual(presented, publishDigest);
    boolean reader = MessageDigest.isEqual(presented, readDigest);
    return publisher || (need == Need.READ && reader) ? Decision.ALLOWED : Decision.WRONG;
  }

  private static String token(String token, String what) {
    Objects.requireNonNull(token, what + " token");
    if (token.isBlank()) {
      throw new IllegalArgumentException("Invalid " + what + " token: it is blank");
    }
    return token;
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest a token: SHA-256 is missing", e);
    }
  }
}
