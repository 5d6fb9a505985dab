package io.verglas.cache.origin;

import java.util.List;

/**
 * A page of a listing: objects and common prefixes, each in key order. If {@code truncated},
 * {@code nextContinuationToken} resumes after the last entry of this page.
 */
public record ListPage(
    List<ListedObject> objects,
    List<String> commonPrefixes,
    boolean truncated,
    String nextContinuationToken) {

  public ListPage {
    objects = List.copyOf(objects);
    commonPrefixes = List.copyOf(commonPrefixes);
    if (truncated && nextContinuationToken == null) {
      throw new IllegalArgumentException("Cannot create a truncated page without a token");
    }
  }

  /** The last key or common prefix of the page, whichever sorts last; null if empty. */
  public String lastEntry() {
    String lastKey = objects.isEmpty() ? null : objects.get(objects.size() - 1).key();
    String lastPrefix = commonPrefixes.isEmpty() ? null : commonPrefixes.get(commonPrefixes.size() - 1);
    if (lastKey == null) {
      return lastPrefix;
    }
    if (lastPrefix == null) {
      return lastKey;
    }
    return KeyOrder.compare(lastKey, lastPrefix) > 0 ? lastKey : lastPrefix;
  }
}
