package io.verglas.access;

import java.util.Objects;

/**
 * STS-style S3 credentials of a scoped token: the token is the session token, the access key id
 * and the secret are derived from it with the key that signed it ({@link ScopedTokens#session}),
 * so a server holding the key re-derives the secret from the presented session token and stores
 * nothing. They reach what {@link TableScope#objects()} grants, until the token expires.
 */
public record SessionCredentials(String accessKeyId, String secretAccessKey, String sessionToken,
    TableScope scope) {
  /** Prefix of every derived access key id, so logs tell session keys from a stack's keys. */
  public static final String ACCESS_KEY_PREFIX = "VGS";

  public SessionCredentials {
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    Objects.requireNonNull(sessionToken, "sessionToken");
    Objects.requireNonNull(scope, "scope");
  }

  @Override
  public String toString() {
    return "SessionCredentials[" + accessKeyId + " for " + scope.subject() + "]"; // never the secret
  }
}
