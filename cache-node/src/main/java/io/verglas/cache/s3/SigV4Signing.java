package io.verglas.cache.s3;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The cryptographic steps of AWS Signature Version 4, shared by request and chunk checks. */
final class SigV4Signing {
  static final String ALGORITHM = "AWS4-HMAC-SHA256";
  static final String EMPTY_SHA256 =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  private SigV4Signing() {}

  static byte[] signingKey(String secret, String date, String region, String service) {
    byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
    k = hmac(k, region);
    k = hmac(k, service);
    return hmac(k, "aws4_request");
  }

  static String stringToSign(String timestamp, String scope, String canonicalRequest) {
    return ALGORITHM + "\n" + timestamp + "\n" + scope + "\n" + sha256Hex(canonicalRequest);
  }

  static String signature(byte[] signingKey, String stringToSign) {
    return HexFormat.of().formatHex(hmac(signingKey, stringToSign));
  }

  static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("The JDK has no HmacSHA256", e);
    }
  }

  static String sha256Hex(String data) {
    return HexFormat.of().formatHex(sha256().digest(data.getBytes(StandardCharsets.UTF_8)));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("The JDK has no SHA-256", e);
    }
  }

  /** Constant-time comparison of two hex signatures (case-insensitive). */
  static boolean signaturesEqual(String expected, String provided) {
    if (provided == null) {
      return false;
    }
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII),
        provided.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
  }
}
