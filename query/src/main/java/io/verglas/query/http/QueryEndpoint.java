package io.verglas.query.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.verglas.access.Access;
import io.verglas.access.AccessDeniedException;
import io.verglas.access.BearerTokens;
import io.verglas.access.InvalidTokenException;
import io.verglas.cache.s3.ServiceEndpoint;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import io.verglas.query.QueryException;
import io.verglas.query.QueryRequest;
import io.verglas.query.QueryRequestParser;
import io.verglas.query.QueryResult;
import io.verglas.query.QueryService;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/query} on the cache node's S3 port: a JSON query in, a JSON answer out
 * ({@code {"kind", "table", "snapshot", "rows", "truncated"}}, and what the kind adds: a
 * traversal's {@code vertices, edges, paths}, a snapshot's {@code sequence-number, parent,
 * timestamp-ms, operation, summary}, a delta's {@code from, inserted, updated, deleted}), with the
 * bearer token; errors as {@code {"error": {"message", "type", "code"}}}. A scan or lookup sent
 * with {@code Accept: application/vnd.apache.arrow.stream} is answered as an Arrow IPC stream
 * instead ({@link ArrowAnswer}).
 * The bearer token is the stack's static token or a scoped token ({@link BearerTokens}); a
 * scoped token queries only the tables its scope grants for reading (every kind of query names
 * one table, checked once the request is parsed and before anything is read), else 403 with the
 * reason; an expired or forged one is refused with 403 before the body is read.
 * Queries run on a bounded pool of their own (never on the node's event loops); beyond its queue
 * a query is refused with 503 rather than waiting without bound.
 */
public final class QueryEndpoint implements ServiceEndpoint, AutoCloseable {
  public static final String SEGMENT = "v1";
  public static final String PATH = "/v1/query";
  private static final Logger LOG = LoggerFactory.getLogger(QueryEndpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MAX_BODY_BYTES = 4L << 20;

  private final QueryService service;
  private final BearerTokens tokens;
  private final ExecutorService pool;
  /** Arrow answers' buffers: four times the answer byte limit of every running query. */
  private final BufferAllocator arrow;

  /**
   * @param threads queries run at once
   * @param queued queries waiting beyond those; more are refused with 503
   */
  public QueryEndpoint(QueryService service, BearerTokens tokens, int threads, int queued) {
    this.service = Objects.requireNonNull(service, "service");
    this.tokens = Objects.requireNonNull(tokens, "tokens");
    this.arrow = new RootAllocator(4L * threads * service.limits().maxResultBytes());
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(queued), r -> {
          Thread t = new Thread(r, "verglas-query");
          t.setDaemon(true);
          return t;
        });
  }

  @Override
  public String segment() {
    return SEGMENT;
  }

  @Override
  public long maxBodyBytes() {
    return MAX_BODY_BYTES;
  }

  @Override
  public Reply check(String method, HttpHeaders headers) {
    String authorization = headers.get(HttpHeaderNames.AUTHORIZATION);
    if (authorization == null) {
      return error(401, "Cannot run a query without Authorization: Bearer <token>");
    }
    try {
      access(headers);
    } catch (InvalidTokenException e) {
      return refused(e);
    }
    if (!"POST".equals(method)) {
      return error(405, "Cannot " + method + " " + PATH + ": queries are POSTed");
    }
    return null;
  }

  @Override
  public CompletableFuture<Reply> handle(Call call) {
    if (!call.rawPath().equals(PATH)) {
      return CompletableFuture.completedFuture(error(404, "No such endpoint: " + call.rawPath()
          + " (the query endpoint is " + PATH + ")"));
    }
    try {
      boolean arrowAnswer = accepts(call.headers(), ArrowAnswer.MEDIA_TYPE);
      Access access = access(call.headers());
      return CompletableFuture.supplyAsync(() -> run(call.body(), arrowAnswer, access), pool);
    } catch (InvalidTokenException expired) { // since check()
      return CompletableFuture.completedFuture(refused(expired));
    } catch (RejectedExecutionException busy) {
      return CompletableFuture.completedFuture(error(503, "Cannot run the query now: the node is"
          + " running as many queries as it queues; retry"));
    }
  }

  private static boolean accepts(HttpHeaders headers, String mediaType) {
    String accept = headers.get(HttpHeaderNames.ACCEPT);
    return accept != null && accept.contains(mediaType);
  }

  /** @throws InvalidTokenException if the Authorization header grants nothing */
  private Access access(HttpHeaders headers) {
    return tokens.authenticateHeader(headers.get(HttpHeaderNames.AUTHORIZATION));
  }

  private Reply refused(InvalidTokenException e) {
    return error(403, "Cannot run a query: " + (e.reason() == InvalidTokenException.Reason.UNKNOWN
        ? "the token was refused" : e.getMessage()));
  }

  private Reply run(byte[] body, boolean arrowAnswer, Access access) {
    try {
      QueryRequest request = QueryRequestParser.parse(body);
      access.checkRead(request.table());
      QueryResult result = service.run(request);
      if (arrowAnswer) {
        return new Reply(200, ArrowAnswer.encode(result, arrow), ArrowAnswer.MEDIA_TYPE);
      }
      return new Reply(200, JSON.writeValueAsBytes(answer(result)));
    } catch (QueryException e) {
      return error(e.status(), e.getMessage());
    } catch (AccessDeniedException e) {
      return error(403, e.getMessage());
    } catch (JsonProcessingException e) {
      return error(500, "Cannot render the answer: " + e.getOriginalMessage());
    } catch (RuntimeException e) {
      LOG.warn("Query failed", e);
      return error(500, "Cannot run the query: " + e);
    }
  }

  private static Map<String, Object> answer(QueryResult result) {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("kind", result.kind());
    answer.put("table", result.table());
    answer.put("snapshot", result.snapshotId());
    if (!"traverse".equals(result.kind())) {
      answer.put("rows", result.rows()); // JSON-ready values
      answer.put("truncated", result.truncated());
    }
    if (result.extra() != null) {
      answer.putAll(result.extra());
    }
    return answer;
  }

  @Override
  public Reply error(int status, String message) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", message);
    error.put("type", type(status));
    error.put("code", status);
    try {
      return new Reply(status, JSON.writeValueAsBytes(Map.of("error", error)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render an error", e);
    }
  }

  private static String type(int status) {
    return switch (status) {
      case 400 -> "BadRequest";
      case 401, 403 -> "NotAuthorized";
      case 404 -> "NotFound";
      case 405 -> "MethodNotAllowed";
      case 406 -> "NotAcceptable";
      case 422 -> "LimitExceeded";
      case 501 -> "NotImplemented";
      case 503 -> "Unavailable";
      default -> "InternalError";
    };
  }

  @Override
  public void close() {
    pool.shutdownNow();
    try {
      if (pool.awaitTermination(5, TimeUnit.SECONDS)) {
        arrow.close(); // every answer's buffers were released
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
