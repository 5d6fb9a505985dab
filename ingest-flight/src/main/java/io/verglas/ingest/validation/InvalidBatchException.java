package io.verglas.ingest.validation;

import java.util.Objects;

/** A stream or batch that does not fit its table; nothing of it was written. */
public class InvalidBatchException extends RuntimeException {
  private final RejectReason reason;

  public InvalidBatchException(String message, RejectReason reason) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public InvalidBatchException(String message, RejectReason reason, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The reason counted by the rejects metric: that of the first problem listed. */
  public RejectReason reason() {
    return reason;
  }
}
