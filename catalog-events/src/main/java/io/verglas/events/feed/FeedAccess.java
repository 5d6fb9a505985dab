package io.verglas.events.feed;

import io.verglas.access.BearerTokens;
import io.verglas.access.InvalidTokenException;
import io.verglas.access.ScopedTokens;
import io.verglas.access.TableScope;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may publish to and read from a change feed (and the admin endpoint serving it), by bearer
 * token ({@code Authorization: Bearer <token>}).
 *
 * <p>Publishing needs the publish token: consumers trust the feed, so a forged event must not
 * get in. Reading needs the read token or the publish token (the jobs that publish also read),
 * unless reads are public. Reading the events themselves ({@link Need#EVENTS}) may also be done
 * with a scoped token ({@link ScopedTokens}), when the feed has the key: the decision carries
 * its scope, and the reader gets only the events of the tables it may read
 * ({@link FeedQuery#within}); a scoped token reads nothing else (status, metrics) and never
 * publishes. Tokens are compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, in time independent of where a guess differs and of its length.
 */
public final class FeedAccess {
  /**
   * What a request needs: nothing, a read credential, a read credential or a scoped token
   * (reading events), or the publish credential.
   */
  public enum Need { NONE, READ, EVENTS, PUBLISH }

  /**
   * The answer to a request's credential: allowed (with the scope of a scoped token, whose
   * events must be filtered) or not; {@link #status()} is the HTTP status to refuse with.
   */
  public static final class Decision {
    public static final Decision ALLOWED = new Decision(200, null, null);
    public static final Decision MISSING =
        new Decision(401, "no bearer token (send Authorization: Bearer <token>)", null);
    public static final Decision WRONG =
        new Decision(403, "the bearer token does not grant this", null);

    private final int status;
    private final String reason;
    private final TableScope scope;

    private Decision(int status, String reason, TableScope scope) {
      this.status = status;
      this.reason = reason;
      this.scope = scope;
    }

    public boolean allowed() {
      return status == 200;
    }

    public int status() {
      return status;
    }

    public String reason() {
      return reason;
    }

    /** The scope an allowed scoped token is limited to; empty for full access. */
    public Optional<TableScope> scope() {
      return Optional.ofNullable(scope);
    }
  }

  private static final String BEARER = "Bearer ";
  private final byte[] publishDigest;
  private final byte[] readDigest;
  private final boolean publicReads;
  private final ScopedTokens scoped;

  private FeedAccess(byte[] publishDigest, byte[] readDigest, boolean publicReads,
      ScopedTokens scoped) {
    this.publishDigest = publishDigest;
    this.readDigest = readDigest;
    this.publicReads = publicReads;
    this.scoped = scoped;
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
    return new FeedAccess(BearerTokens.digest(publishToken),
        BearerTokens.digest(readToken), publicReads, null);
  }

  /** This access, also letting scoped tokens {@code verifier} accepts read events. */
  public FeedAccess withScopedTokens(ScopedTokens verifier) {
    return new FeedAccess(publishDigest, readDigest, publicReads,
        Objects.requireNonNull(verifier, "verifier"));
  }

  /** No credentials at all: anyone may publish and read. Only for in-process tests. */
  public static FeedAccess open() {
    return new FeedAccess(null, null, true, null);
  }

  public boolean publicReads() {
    return publicReads;
  }

  /** Decides on a request needing {@code need} that sent {@code authorization} (may be null). */
  public Decision check(Need need, String authorization) {
    if (need == Need.NONE || publishDigest == null || (need != Need.PUBLISH && publicReads)) {
      return Decision.ALLOWED;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Decision.MISSING;
    }
    String token = authorization.substring(BEARER.length()).trim();
    if (scoped != null && ScopedTokens.isScoped(token)) {
      return scoped(need, token);
    }
    byte[] presented = BearerTokens.digest(token);
    boolean publisher = MessageDigest.isEqual(presented, publishDigest);
    boolean reader = MessageDigest.isEqual(presented, readDigest);
    return publisher || (need != Need.PUBLISH && reader) ? Decision.ALLOWED : Decision.WRONG;
  }

  private Decision scoped(Need need, String token) {
    if (need != Need.EVENTS) {
      return new Decision(403, "a scoped token reads only the events of its tables", null);
    }
    try {
      return new Decision(200, null, scoped.verify(token));
    } catch (InvalidTokenException e) {
      return new Decision(403, e.getMessage(), null);
    }
  }

  private static String token(String token, String what) {
    Objects.requireNonNull(token, what + " token");
    if (token.isBlank()) {
      throw new IllegalArgumentException("Invalid " + what + " token: it is blank");
    }
    return token;
  }
}
