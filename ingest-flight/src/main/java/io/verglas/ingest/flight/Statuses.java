package io.verglas.ingest.flight;

import io.verglas.access.AccessDeniedException;
import io.verglas.arrow.UnsupportedTypeException;
import io.verglas.ingest.validation.InvalidBatchException;
import io.verglas.ingest.wal.WalUnavailableException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where failures become Flight statuses, so every call answers the same failure
 * with the same code: bad input → INVALID_ARGUMENT, missing tables → NOT_FOUND,
 * a table outside a scoped token's grants → UNAUTHORIZED (gRPC PERMISSION_DENIED), WAL trouble →
 * UNAVAILABLE (retry later, elsewhere), anything unexpected → INTERNAL (and logged).
 */
final class Statuses {
  private static final Logger LOG = LoggerFactory.getLogger(Statuses.class);

  private Statuses() {}

  static FlightRuntimeException toFlight(Throwable failure) {
    Throwable e = unwrap(failure);
    if (e instanceof FlightRuntimeException flight) {
      return flight;
    } else if (e instanceof AccessDeniedException) {
      return CallStatus.UNAUTHORIZED.withDescription(e.getMessage()).toRuntimeException();
    } else if (e instanceof NoSuchTableException || e instanceof NoSuchNamespaceException) {
      return CallStatus.NOT_FOUND.withDescription(e.getMessage()).toRuntimeException();
    } else if (e instanceof org.apache.iceberg.exceptions.CommitFailedException) {
      return CallStatus.UNAVAILABLE.withDescription(e.getMessage() + " (a concurrent change won; "
          + "retry)").toRuntimeException();
    } else if (e instanceof AlreadyExistsException) {
      return CallStatus.ALREADY_EXISTS.withDescription(e.getMessage()).toRuntimeException();
    } else if (e instanceof InvalidBatchException || e instanceof IllegalArgumentException
        || e instanceof ValidationException || e instanceof UnsupportedTypeException) {
      return CallStatus.INVALID_ARGUMENT.withDescription(e.getMessage()).toRuntimeException();
    } else if (e instanceof org.apache.iceberg.exceptions.RuntimeIOException
        || e instanceof java.io.UncheckedIOException
        || e instanceof software.amazon.awssdk.core.exception.SdkClientException) {
      return CallStatus.UNAVAILABLE.withDescription("Cannot reach the catalog or the object "
          + "store: " + e.getMessage()).withCause(e).toRuntimeException();
    } else if (e instanceof WalUnavailableException) {
      return CallStatus.UNAVAILABLE.withDescription(e.getMessage()).toRuntimeException();
    } else if (e instanceof CancellationException) {
      return CallStatus.CANCELLED.withDescription(String.valueOf(e.getMessage()))
          .toRuntimeException();
    }
    LOG.error("Unexpected failure", e);
    return CallStatus.INTERNAL.withDescription("Unexpected server error: " + e)
        .withCause(e).toRuntimeException();
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable e = failure;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
