package io.verglas.cache.catalog;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Entity tags of /catalog's loads (config, namespace, table) and the If-None-Match test that
 * turns a repeated load into 304 Not Modified.
 *
 * <p>Design: a table's tag is derived from its metadata file's location and the snapshots mode
 * asked for: a metadata file is immutable, and every commit writes a new one, so the tag changes
 * on every commit and only then, and a matching load needs no serialization of the metadata.
 * Other loads are tagged by a digest of their JSON body. Tags are weak ({@code W/"…"}): the same
 * metadata may be serialized differently by another version of the node. If-None-Match is
 * compared weakly, as RFC 9110 asks for GET: a listed tag matches whether or not it carries
 * {@code W/} (Iceberg's client sends back what it received), and {@code *} matches any load.
 */
final class CatalogETags {
  private static final int HEX_CHARS = 32;

  private CatalogETags() {}

  /** The tag of a table load of {@code metadataLocation} in {@code snapshots} mode (null: all). */
  static String table(String metadataLocation, String snapshots) {
    String mode = snapshots == null ? "all" : snapshots.toLowerCase(Locale.ROOT);
    return weak(digest(("table\n" + mode + "\n" + metadataLocation).getBytes(StandardCharsets.UTF_8)));
  }

  /** The tag of a load answered with {@code json}. */
  static String body(byte[] json) {
    return weak(digest(json));
  }

  /** Whether the If-None-Match header value (null: none) names {@code tag}. */
  static boolean matches(String ifNoneMatch, String tag) {
    if (ifNoneMatch == null) {
      return false;
    }
    String opaque = opaque(tag);
    for (String listed : ifNoneMatch.split(",")) {
      String candidate = listed.trim();
      if (candidate.equals("*") || opaque(candidate).equals(opaque)) {
        return true;
      }
    }
    return false;
  }

  /** The tag without its weakness prefix and quotes. */
  private static String opaque(String tag) {
    String t = tag.startsWith("W/") ? tag.substring(2) : tag;
    return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
  }

  private static String weak(String opaque) {
    return "W/\"" + opaque + "\"";
  }

  private static String digest(byte[] bytes) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
      return HexFormat.of().formatHex(hash).substring(0, HEX_CHARS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot tag /catalog answers: no SHA-256 in this JVM", e);
    }
  }
}
