package io.verglas.cache.cluster.peer;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 of each peer request under the cluster secret. The secret never crosses the wire;
 * a request whose tag does not match (compared in constant time) is refused. Responses are not
 * tagged: they answer a request the caller made on its own connection.
 */
final class PeerAuth {
  static final int TAG_BYTES = 32;
  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  PeerAuth(String secret) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
  }

  byte[] tag(byte[] data, int offset, int length) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update(data, offset, length);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot compute a peer request tag: " + e.getMessage(), e);
    }
  }

  boolean verify(byte[] data, int offset, int length, byte[] tag) {
    return MessageDigest.isEqual(tag(data, offset, length), tag);
  }
}
