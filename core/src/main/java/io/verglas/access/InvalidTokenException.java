package io.verglas.access;

/** A bearer token that is refused outright; {@link #reason()} says why. */
public final class InvalidTokenException extends RuntimeException {
  /** Why a token was refused. */
  public enum Reason {
    /** Not a token of the version this build reads, or its parts do not decode. */
    MALFORMED,
    /** The signature does not match: minted with another key, or altered. */
    BAD_SIGNATURE,
    /** Correctly signed, but past its expiry. */
    EXPIRED,
    /** Neither the server's static token nor a scoped token it accepts. */
    UNKNOWN
  }

  private final Reason reason;

  InvalidTokenException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
