package io.verglas.ingest.flight;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.AuthUtilities;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * Accepts calls whose {@code authorization} header is {@code Bearer <token>} for the one
 * configured token. Flight runs it for every call (through its
 * {@code ServerCallHeaderAuthMiddleware}); a missing or wrong token ends the call with
 * UNAUTHENTICATED before any handler runs. Tokens are compared in constant time.
 */
public final class StaticBearerAuthenticator implements CallHeaderAuthenticator {
  static final String PEER = "bearer-token";
  private final byte[] token;
  private final Runnable onRejected;

  public StaticBearerAuthenticator(String token) {
    this(token, () -> { });
  }

  /** An authenticator that calls {@code onRejected} for every call it refuses. */
  public StaticBearerAuthenticator(String token, Runnable onRejected) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("Invalid token: blank");
    }
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.onRejected = onRejected;
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    String presented = AuthUtilities.getValueFromAuthHeader(headers, Auth2Constants.BEARER_PREFIX);
    if (presented == null) {
      onRejected.run();
      throw CallStatus.UNAUTHENTICATED.withDescription("Missing bearer token: send the header "
          + "'authorization: Bearer <token>'").toRuntimeException();
    }
    if (!MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8))) {
      onRejected.run();
      throw CallStatus.UNAUTHENTICATED.withDescription("Invalid bearer token")
          .toRuntimeException();
    }
    return () -> PEER;
  }
}
