package io.verglas.cache.origin;

import java.time.Instant;
import java.util.Objects;

/** The outcome of a successful write: the new ETag (quoted) and modification time. */
public record PutResult(String etag, Instant lastModified) {
  public PutResult {
    Objects.requireNonNull(etag, "etag");
    Objects.requireNonNull(lastModified, "lastModified");
  }
}
