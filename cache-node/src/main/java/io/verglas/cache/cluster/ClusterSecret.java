package io.verglas.cache.cluster;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 tags under the cluster secret: on each peer request, and on what each member
 * advertises (so a process without the secret that joins the JGroups group never becomes an
 * owner that others would ask for blocks). The secret never crosses the wire; tags are compared
 * in constant time.
 */
public final class ClusterSecret {
  public static final int TAG_BYTES = 32;
  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  public ClusterSecret(String secret) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
  }

  public byte[] tag(byte[] data, int offset, int length) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update(data, offset, length);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot compute a cluster tag: " + e.getMessage(), e);
    }
  }

  public boolean verify(byte[] data, int offset, int length, byte[] tag) {
    return tag != null && MessageDigest.isEqual(tag(data, offset, length), tag);
  }
}
