package io.verglas.query;

/**
 * A query that cannot be answered, with the HTTP status that says whose fault it is: 400 for a
 * bad request (unknown column, bad expression, wrong key), 404 for an unknown table or snapshot,
 * 422 when the query passed a limit of the node.
 */
public final class QueryException extends RuntimeException {
  private final int status;

  public QueryException(int status, String message) {
    super(message);
    this.status = status;
  }

  public QueryException(int status, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  public int status() {
    return status;
  }

  static QueryException badRequest(String message) {
    return new QueryException(400, message);
  }

  static QueryException notFound(String message) {
    return new QueryException(404, message);
  }

  static QueryException overLimit(String message) {
    return new QueryException(422, message);
  }
}
