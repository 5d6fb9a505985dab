package io.verglas.cache.s3;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding as SigV4 and S3 define it: every byte except {@code A-Z a-z 0-9 - _ . ~} is
 * encoded as {@code %XY} (upper-case hex); {@code /} is kept in paths. Decoding is strict: a bad
 * escape or bytes that are not UTF-8 are refused rather than replaced, so a key can never be
 * silently altered. {@code +} is a literal plus, not a space.
 */
final class UriEncoding {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private UriEncoding() {}

  static String encode(String value, boolean keepSlash) {
    StringBuilder out = new StringBuilder(value.length() + 16);
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '_' || c == '.' || c == '~' || (keepSlash && c == '/')) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  /** Decodes percent escapes; throws IllegalArgumentException on a bad escape or non-UTF-8. */
  static String decode(String value) {
    if (value.indexOf('%') < 0) {
      return value;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%') {
        if (i + 2 >= value.length()) {
          throw new IllegalArgumentException("truncated percent escape at " + i);
        }
        int hi = Character.digit(value.charAt(i + 1), 16);
        int lo = Character.digit(value.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("bad percent escape at " + i);
        }
        bytes.write((hi << 4) | lo);
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < value.length()) {
          utf8 = value.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
          i++;
        }
        bytes.write(utf8, 0, utf8.length);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("the decoded bytes are not valid UTF-8");
    }
  }
}
