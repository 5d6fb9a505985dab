package io.verglas.cache.origin;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * ETag spelling rules shared by origins and the endpoint. ETags travel quoted, as S3 sends them
 * ({@code "d41d8cd98f00b204e9800998ecf8427e"}); clients send them back quoted, unquoted or weak
 * ({@code W/"..."}), so comparisons go through {@link #matches}.
 */
public final class ETags {
  private ETags() {}

  /** Quotes a bare ETag value; an already quoted value is returned unchanged. */
  public static String quote(String value) {
    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
      return value;
    }
    return '"' + value + '"';
  }

  /** The bare value: no weak prefix, no quotes. */
  public static String bare(String value) {
    String v = value.trim();
    if (v.startsWith("W/")) {
      v = v.substring(2);
    }
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      v = v.substring(1, v.length() - 1);
    }
    return v;
  }

  public static boolean matches(String a, String b) {
    return a != null && b != null && bare(a).equals(bare(b));
  }

  /** The S3 ETag of content uploaded in one piece: the quoted hex MD5. */
  public static String ofMd5(byte[] md5) {
    return quote(HexFormat.of().formatHex(md5));
  }

  /** The S3 ETag of a multipart object: MD5 of the concatenated binary part MD5s, then -N. */
  public static String ofParts(byte[][] partMd5s) {
    MessageDigest md5 = newMd5();
    for (byte[] part : partMd5s) {
      md5.update(part);
    }
    return quote(HexFormat.of().formatHex(md5.digest()) + "-" + partMd5s.length);
  }

  public static MessageDigest newMd5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot compute ETags: the JDK has no MD5", e);
    }
  }
}
