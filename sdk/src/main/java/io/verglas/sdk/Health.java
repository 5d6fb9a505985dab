package io.verglas.sdk;

/**
 * The {@code health} action's answer: {@code status} is "ok" while the server accepts writes
 * and "fenced" once another process took over its WAL stream; {@code json} is the whole answer.
 */
public record Health(String status, String stream, String json) {
  public boolean ok() {
    return "ok".equals(status);
  }
}
