package io.verglas.ingest.flight;

import io.verglas.access.AccessDeniedException;
import io.verglas.arrow.UnsupportedTypeException;
import io.verglas.ingest.validation.InvalidBatchException;
import io.verglas.ingest.validation.RejectReason;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** The reject reason a failed call counts under, or null when it was not the client's fault. */
final class Rejections {
  private Rejections() {}

  static RejectReason reason(Throwable failure) {
    if (failure instanceof InvalidBatchException invalid) {
      return invalid.reason();
    } else if (failure instanceof AccessDeniedException) {
      return RejectReason.PERMISSION_DENIED;
    } else if (failure instanceof NoSuchTableException
        || failure instanceof NoSuchNamespaceException) {
      return RejectReason.UNKNOWN_TABLE;
    } else if (failure instanceof UnsupportedTypeException) {
      return RejectReason.SCHEMA;
    } else if (failure instanceof IllegalArgumentException
        || failure instanceof org.apache.iceberg.exceptions.ValidationException) {
      return RejectReason.OTHER;
    } else if (failure instanceof FlightRuntimeException flight
        && flight.status().code() == FlightStatusCode.UNAUTHENTICATED) {
      return RejectReason.UNAUTHENTICATED;
    } else if (failure instanceof FlightRuntimeException flight
        && (flight.status().code() == FlightStatusCode.INVALID_ARGUMENT
            || flight.status().code() == FlightStatusCode.UNIMPLEMENTED)) {
      return RejectReason.OTHER;
    }
    return null;
  }
}
