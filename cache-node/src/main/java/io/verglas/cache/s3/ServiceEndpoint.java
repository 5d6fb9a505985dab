package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What serves the requests under one reserved first path segment of the S3 port: {@code
 * /catalog} (the Iceberg REST catalog, {@code io.verglas.cache.catalog}) and {@code /v1} (the
 * query primitives). They are not S3 requests: no SigV4, a bearer token instead, JSON errors.
 * So the S3 request handler hands them over on arrival, before SigV4 authentication, receives
 * their body within {@link #maxBodyBytes()}, and writes back the {@link Reply}. Buckets named
 * like a reserved segment therefore cannot be served path-style ({@code v1} is too short to be
 * a bucket name anyway).
 */
public interface ServiceEndpoint {
  /** The reserved first path segments, whether or not an endpoint serves them. */
  java.util.Set<String> RESERVED = java.util.Set.of("catalog", "v1");

  /** The first path segment this endpoint owns: one of {@link #RESERVED}. */
  String segment();

  /** Largest request body accepted; a larger one is refused before it is read. */
  long maxBodyBytes();

  /**
   * Checks a request head on the event loop (no blocking): the answer to send at once, such as
   * 401 without the token, or null to receive the body and {@link #handle} the request.
   */
  Reply check(String method, HttpHeaders headers);

  /** Runs a request; the future completes off the event loop and never fails. */
  CompletableFuture<Reply> handle(Call call);

  /** The answer for an error the S3 layer found (a malformed body, a body too large). */
  Reply error(int status, String message);

  /**
   * One request.
   *
   * @param rawPath the path as sent (still percent-encoded), starting with {@code /} and the
   *     endpoint's {@link #segment()}
   * @param params the decoded query parameters
   */
  record Call(String method, String rawPath, Map<String, String> params, HttpHeaders headers,
      byte[] body) {}

  /** An answer: the status, a body (or null for none), the body's media type and extra headers. */
  record Reply(int status, byte[] body, String contentType, Map<String, String> headers) {
    public static final String JSON = "application/json";

    public Reply {
      headers = Map.copyOf(headers);
    }

    /** No extra headers. */
    public Reply(int status, byte[] body, String contentType) {
      this(status, body, contentType, Map.of());
    }

    /** A JSON body, or none. */
    public Reply(int status, byte[] json) {
      this(status, json, JSON);
    }
  }
}
