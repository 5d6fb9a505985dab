package io.verglas.cache.origin;

import java.util.Map;
import java.util.Objects;

/** Metadata stored with a new object, and the precondition of the write. */
public record WriteOptions(
    String contentType,
    Map<String, String> userMetadata,
    Map<String, String> contentHeaders,
    WriteCondition condition) {

  public static final WriteOptions DEFAULT =
      new WriteOptions(null, Map.of(), Map.of(), WriteCondition.NONE);

  public WriteOptions {
    userMetadata = userMetadata == null ? Map.of() : Map.copyOf(userMetadata);
    contentHeaders = contentHeaders == null ? Map.of() : Map.copyOf(contentHeaders);
    Objects.requireNonNull(condition, "condition");
  }

  public WriteOptions withCondition(WriteCondition newCondition) {
    return new WriteOptions(contentType, userMetadata, contentHeaders, newCondition);
  }
}
