package io.verglas.cache.origin;

import java.util.Comparator;

/**
 * S3 lists keys in UTF-8 byte order. Comparing code points gives the same order (UTF-8 preserves
 * code point order), whereas {@link String#compareTo} compares UTF-16 units and puts U+E000..U+FFFF
 * after supplementary characters.
 */
public final class KeyOrder {
  public static final Comparator<String> COMPARATOR = KeyOrder::compare;

  private KeyOrder() {}

  public static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
