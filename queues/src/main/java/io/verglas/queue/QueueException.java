package io.verglas.queue;

/** A queue operation failed: the message says which and why ("Cannot ...: ..."). */
public class QueueException extends RuntimeException {
  public QueueException(String message) {
    super(message);
  }

  public QueueException(String message, Throwable cause) {
    super(message, cause);
  }
}
