package io.verglas.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.function.Consumer;

/** Counts the JSON bytes of an answer as it is built; refuses it past the node's limit (422). */
final class ResultBudget implements Consumer<Object> {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final long maxBytes;
  private final String what;
  private long bytes;

  ResultBudget(long maxBytes, String what) {
    this.maxBytes = maxBytes;
    this.what = what;
  }

  @Override
  public void accept(Object value) {
    try {
      bytes += JSON.writeValueAsBytes(value).length + 1;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render a value of " + what + " as JSON", e);
    }
    if (bytes > maxBytes) {
      throw QueryException.overLimit("Cannot answer the query of " + what + ": the answer exceeds"
          + " the node's limit of " + maxBytes + " bytes; select fewer columns or lower the limit");
    }
  }
}
