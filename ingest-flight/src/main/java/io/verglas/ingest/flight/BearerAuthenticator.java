package io.verglas.ingest.flight;

import io.verglas.access.Access;
import io.verglas.access.BearerTokens;
import io.verglas.access.InvalidTokenException;
import io.verglas.access.ScopedTokens;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.AuthUtilities;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * Accepts calls whose {@code authorization} header is {@code Bearer <token>} for the server's
 * static token or a valid scoped token ({@link BearerTokens}). Flight runs it for every call
 * (through its {@code ServerCallHeaderAuthMiddleware}); a missing, wrong, expired or forged
 * token ends the call with UNAUTHENTICATED before any handler runs.
 *
 * <p>The call's peer identity carries what the handlers need to know of the caller: a fixed
 * name for the static token, the token itself for a scoped one, which {@link #access} turns back
 * into its scope (verifying it again costs one HMAC, and keeps no state between the two).
 */
public final class BearerAuthenticator implements CallHeaderAuthenticator {
  static final String PEER = "bearer-token";
  private final BearerTokens tokens;
  private final Runnable onRejected;

  /** An authenticator that calls {@code onRejected} for every call it refuses. */
  public BearerAuthenticator(BearerTokens tokens, Runnable onRejected) {
    this.tokens = tokens;
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
    try {
      Access access = tokens.authenticate(presented);
      String peer = access.scope().isPresent() ? presented : PEER;
      return () -> peer;
    } catch (InvalidTokenException e) {
      onRejected.run();
      throw CallStatus.UNAUTHENTICATED.withDescription(e.getMessage()).toRuntimeException();
    }
  }

  /** What the caller of an authenticated call may do. */
  static Access access(BearerTokens tokens, CallContext context) {
    String peer = context.peerIdentity();
    if (!ScopedTokens.isScoped(peer)) {
      return Access.FULL;
    }
    try {
      return tokens.authenticate(peer);
    } catch (InvalidTokenException e) { // expired since the call was authenticated
      throw CallStatus.UNAUTHENTICATED.withDescription(e.getMessage()).toRuntimeException();
    }
  }
}
