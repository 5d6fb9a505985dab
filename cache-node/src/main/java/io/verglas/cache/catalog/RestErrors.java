package io.verglas.cache.catalog;

import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failures as Iceberg REST error responses, with the status codes of the REST catalog spec
 * (which Iceberg's client turns back into the same exceptions): 400 bad request, 401/403,
 * 404 no such namespace or table, 406 unsupported, 409 already exists, commit failed or
 * namespace not empty, 422, 503 when the request queue is full, 500 otherwise. The response
 * carries the type and message, never a stack trace.
 */
final class RestErrors {
  private static final Logger LOG = LoggerFactory.getLogger(RestErrors.class);

  private RestErrors() {}

  static ErrorResponse of(Throwable failure) {
    Throwable e = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    int status = status(e);
    if (status == 500) {
      LOG.warn("A /catalog request failed with an internal error", e);
    }
    String type = e instanceof RejectedExecutionException
        ? "ServiceUnavailableException" : e.getClass().getSimpleName();
    return of(status, type, e.getMessage() != null ? e.getMessage() : e.toString());
  }

  static ErrorResponse of(int status, String type, String message) {
    return ErrorResponse.builder().responseCode(status).withType(type).withMessage(message).build();
  }

  /** The type an error found outside the catalog (by the HTTP layer) is reported as. */
  static String typeFor(int status) {
    return switch (status) {
      case 401 -> "NotAuthorizedException";
      case 403 -> "ForbiddenException";
      case 404 -> "NotFoundException";
      case 503 -> "ServiceUnavailableException";
      default -> status >= 500 ? "ServerErrorException" : "BadRequestException";
    };
  }

  private static int status(Throwable e) {
    if (e instanceof IllegalArgumentException || e instanceof ValidationException
        || e instanceof BadRequestException) {
      return 400;
    } else if (e instanceof NotAuthorizedException) {
      return 401;
    } else if (e instanceof ForbiddenException) {
      return 403;
    } else if (e instanceof NoSuchNamespaceException || e instanceof NoSuchTableException
        || e instanceof NoSuchViewException) {
      return 404;
    } else if (e instanceof UnsupportedOperationException) {
      return 406;
    } else if (e instanceof AlreadyExistsException || e instanceof CommitFailedException
        || e instanceof NamespaceNotEmptyException) {
      return 409;
    } else if (e instanceof UnprocessableEntityException) {
      return 422;
    } else if (e instanceof RejectedExecutionException || e instanceof ServiceUnavailableException) {
      return 503;
    }
    return 500;
  }
}
