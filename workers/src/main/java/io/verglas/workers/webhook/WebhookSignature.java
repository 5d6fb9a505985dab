package io.verglas.workers.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a request signed as the Standard Webhooks specification says (the scheme of Svix,
 * and close to Stripe's and GitHub's): headers {@code webhook-id}, {@code webhook-timestamp}
 * (Unix seconds) and {@code webhook-signature}, a space-separated list of {@code v1,<base64>}
 * where each is HMAC-SHA256 of {@code id.timestamp.body} under the secret. A secret
 * {@code whsec_<base64>} is that key; any other secret's UTF-8 bytes are the key. Comparison is
 * constant-time; a timestamp outside the tolerance is refused, so a captured request cannot be
 * replayed later (within the tolerance the job identity, from {@code webhook-id}, absorbs it).
 */
public final class WebhookSignature {
  public static final String ID = "webhook-id";
  public static final String TIMESTAMP = "webhook-timestamp";
  public static final String SIGNATURE = "webhook-signature";
  private static final String PREFIX = "whsec_";

  private WebhookSignature() {}

  /** Null if the request is signed with {@code secret} within {@code tolerance}, else why not. */
  static String verify(WebhookRequest request, String secret, Instant now, Duration tolerance) {
    String id = request.header(ID);
    String timestamp = request.header(TIMESTAMP);
    String signatures = request.header(SIGNATURE);
    if (id == null || timestamp == null || signatures == null) {
      return "a signed request needs the headers " + ID + ", " + TIMESTAMP + " and " + SIGNATURE;
    }
    long seconds;
    try {
      seconds = Long.parseLong(timestamp.trim());
    } catch (NumberFormatException e) {
      return TIMESTAMP + " is not a Unix time in seconds: " + timestamp;
    }
    if (Math.abs(now.getEpochSecond() - seconds) > tolerance.toSeconds()) {
      return TIMESTAMP + " " + seconds + " is more than " + tolerance.toSeconds()
          + " s from the server's time " + now.getEpochSecond();
    }
    byte[] expected = sign(secret, id, seconds, request.body());
    for (String candidate : signatures.trim().split(" +")) {
      if (candidate.startsWith("v1,") && matches(expected, candidate.substring(3))) {
        return null;
      }
    }
    return "no v1 signature in " + SIGNATURE + " matches the trigger's secret";
  }

  /** The signature bytes of a request: HMAC-SHA256 of {@code id.timestamp.body}. */
  static byte[] sign(String secret, String id, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key(secret), "HmacSHA256"));
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("Cannot compute HMAC-SHA256: " + e.getMessage(), e);
    }
  }

  /** The {@code webhook-signature} header value of a request (what a sender computes). */
  public static String header(String secret, String id, long timestamp, byte[] body) {
    return "v1," + Base64.getEncoder().encodeToString(sign(secret, id, timestamp, body));
  }

  private static byte[] key(String secret) {
    if (secret.startsWith(PREFIX)) {
      try {
        return Base64.getDecoder().decode(secret.substring(PREFIX.length()));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("Cannot use webhook secret: " + PREFIX
            + " is not followed by base64");
      }
    }
    return secret.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean matches(byte[] expected, String base64) {
    try {
      return MessageDigest.isEqual(expected, Base64.getDecoder().decode(base64));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
