package io.verglas.access;

/**
 * A call its credential does not grant: a scoped token naming a table outside its scope, or
 * asking for what only the stack's own tokens may do. Servers answer it with their "forbidden"
 * status (Flight PERMISSION_DENIED, HTTP 403) and the message.
 */
public final class AccessDeniedException extends RuntimeException {
  public AccessDeniedException(String message) {
    super(message);
  }
}
