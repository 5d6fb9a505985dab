package io.verglas.sdk;

import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;

/**
 * A call to a Verglas server failed. {@link #code()} is the Flight status the server (or the
 * transport) answered with and {@link #description()} the server's message, unchanged, e.g.
 * {@code INVALID_ARGUMENT} with "Cannot write batch 0 to demo.events: 1 problem: row 3, column
 * 'id': null in primary key column".
 */
public class VerglasException extends RuntimeException {
  private final FlightStatusCode code;
  private final String description;

  public VerglasException(FlightStatusCode code, String description, Throwable cause) {
    super(code + ": " + description, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.description = description;
  }

  public VerglasException(FlightStatusCode code, String description) {
    this(code, description, null);
  }

  public FlightStatusCode code() {
    return code;
  }

  /** The server's message without the status code. */
  public String description() {
    return description;
  }

  /** Wraps any failure of a Flight call, keeping the status and message of Flight errors. */
  static VerglasException from(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof VerglasException verglas) {
      return verglas;
    }
    if (cause instanceof FlightRuntimeException flight) {
      return new VerglasException(flight.status().code(), flight.status().description(), flight);
    }
    if (cause instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return new VerglasException(FlightStatusCode.CANCELLED, "interrupted", cause);
    }
    return new VerglasException(FlightStatusCode.UNKNOWN, String.valueOf(cause), cause);
  }
}
