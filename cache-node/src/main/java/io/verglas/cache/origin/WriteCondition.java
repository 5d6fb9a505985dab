package io.verglas.cache.origin;

/**
 * A precondition on the current version of the target of a write: none, "must not exist"
 * ({@code If-None-Match: *}) or "must have this ETag" ({@code If-Match}). The origin checks it
 * and replaces the object atomically, so two conditional writers can never both succeed.
 */
public record WriteCondition(boolean mustNotExist, String ifMatchEtag) {
  public static final WriteCondition NONE = new WriteCondition(false, null);

  public WriteCondition {
    if (mustNotExist && ifMatchEtag != null) {
      throw new IllegalArgumentException(
          "Cannot combine If-None-Match: * with If-Match " + ifMatchEtag);
    }
  }

  public static WriteCondition ifNoneMatchAny() {
    return new WriteCondition(true, null);
  }

  public static WriteCondition ifMatch(String etag) {
    return new WriteCondition(false, ETags.quote(ETags.bare(etag)));
  }

  public boolean isNone() {
    return !mustNotExist && ifMatchEtag == null;
  }
}
