package io.verglas.cache.origin.azure;

import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.WriteOptions;
import com.azure.storage.blob.models.BlobHttpHeaders;
import com.azure.storage.blob.models.BlobProperties;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How S3 object metadata is stored on a blob. Content type and the standard headers go to the
 * blob's HTTP headers; {@code Expires}, which Azure does not keep, goes to the metadata entry
 * {@value #EXPIRES}. User metadata names are escaped into Azure's (C# identifier) alphabet:
 * {@code a-z} and {@code 0-9} stay, every other byte of the UTF-8 name becomes {@code _hh}, so
 * {@code x-trace} is stored as {@code x_2dtrace} and plain names stay readable to other Azure
 * tools. An escaped name never contains {@code __}, which keeps {@code verglas__*} for our own
 * entries.
 */
final class AzureMetadata {
  static final String INTERNAL_PREFIX = "verglas__";
  static final String EXPIRES = INTERNAL_PREFIX + "expires";

  private AzureMetadata() {}

  static String encodeName(String name) {
    StringBuilder out = new StringBuilder();
    byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < utf8.length; i++) {
      int b = utf8[i] & 0xff;
      boolean letter = b >= 'a' && b <= 'z';
      boolean digit = b >= '0' && b <= '9';
      if (letter || (digit && i > 0)) {
        out.append((char) b);
      } else {
        out.append('_').append(HexFormat.of().toHexDigits((byte) b));
      }
    }
    return out.toString();
  }

  /** The S3 name of a stored name; names other tools wrote come back lower case, unchanged. */
  static String decodeName(String stored) {
    String name = stored.toLowerCase(Locale.ROOT);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '_' && isHex(name, i + 1) && isHex(name, i + 2)) {
        out.write(HexFormat.fromHexDigits(name, i + 1, i + 3));
        i += 2;
      } else {
        out.write(c <= 0x7f ? c : '?');
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static boolean isHex(String s, int i) {
    return i < s.length() && Character.digit(s.charAt(i), 16) >= 0;
  }

  /** The blob metadata of a write: escaped user names plus our own entries. */
  static Map<String, String> toBlob(WriteOptions options) {
    Map<String, String> metadata = new LinkedHashMap<>();
    options.userMetadata().forEach((k, v) -> metadata.put(encodeName(k), v));
    String expires = options.contentHeaders().get("expires");
    if (expires != null) {
      metadata.put(EXPIRES, expires);
    }
    return metadata;
  }

  static BlobHttpHeaders headers(WriteOptions options) {
    Map<String, String> h = options.contentHeaders();
    return new BlobHttpHeaders()
        .setContentType(options.contentType() != null ? options.contentType() : ObjectMeta.DEFAULT_CONTENT_TYPE)
        .setCacheControl(h.get("cache-control"))
        .setContentDisposition(h.get("content-disposition"))
        .setContentEncoding(h.get("content-encoding"))
        .setContentLanguage(h.get("content-language"));
  }

  static ObjectMeta meta(BlobProperties p) {
    Map<String, String> user = new LinkedHashMap<>();
    Map<String, String> content = new LinkedHashMap<>();
    if (p.getMetadata() != null) {
      p.getMetadata().forEach((k, v) -> {
        if (k.equalsIgnoreCase(EXPIRES)) {
          content.put("expires", v);
        } else if (!k.toLowerCase(Locale.ROOT).startsWith(INTERNAL_PREFIX)) {
          user.put(decodeName(k), v);
        }
      });
    }
    putIfPresent(content, "cache-control", p.getCacheControl());
    putIfPresent(content, "content-disposition", p.getContentDisposition());
    putIfPresent(content, "content-encoding", p.getContentEncoding());
    putIfPresent(content, "content-language", p.getContentLanguage());
    return new ObjectMeta(AzureErrors.etag(p.getETag()), p.getBlobSize(), instant(p.getLastModified()),
        p.getContentType(), user, content);
  }

  static java.time.Instant instant(OffsetDateTime time) {
    return time == null ? java.time.Instant.EPOCH : time.toInstant();
  }

  private static void putIfPresent(Map<String, String> map, String name, String value) {
    if (value != null && !value.isEmpty()) {
      map.put(name, value);
    }
  }
}
