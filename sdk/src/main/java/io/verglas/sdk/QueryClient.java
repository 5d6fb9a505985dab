package io.verglas.sdk;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.table.TableIdentifiers;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;

/**
 * The query primitives of a cache node ({@code POST /v1/query}) as Java verbs: {@link #scan},
 * {@link #lookup} and {@link #traverse}, each pinned to the current snapshot unless told
 * otherwise, plus {@link #snapshot} (a snapshot's metadata) and {@link #delta} (the rows changed
 * between two snapshots). Filters are Iceberg {@link Expression}s.
 *
 * <pre>{@code
 * QueryClient queries = QueryClient.of(URI.create("http://127.0.0.1:9100"), catalogToken);
 * QueryAnswer big = queries.scan(table).select("id", "amount")
 *     .where(Expressions.greaterThan("amount", 100)).limit(50).run();
 * QueryAnswer rows = queries.lookup(table, List.of(1L, 2L));
 * }</pre>
 */
public final class QueryClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<Map<String, Object>>> ROWS = new TypeReference<>() {};
  private static final TypeReference<Map<String, Object>> ROW = new TypeReference<>() {};
  private static final TypeReference<Map<String, String>> SUMMARY = new TypeReference<>() {};

  private final URI uri;
  private final String token;
  private final HttpClient http;
  private final Duration timeout;

  private QueryClient(URI endpoint, String token, Duration timeout) {
    this.uri = endpoint.resolve("/v1/query");
    this.token = Objects.requireNonNull(token, "token");
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  }

  /** A client of the cache node at {@code endpoint} (its S3 endpoint) with its query token. */
  public static QueryClient of(URI endpoint, String token) {
    return new QueryClient(endpoint, token, Duration.ofSeconds(60));
  }

  /** A scan of {@code table}; set its options, then {@link Scan#run()}. */
  public Scan scan(TableIdentifier table) {
    return new Scan(table);
  }

  /** The rows of the given primary keys (scalars for a one-column key, else maps of column to value). */
  public QueryAnswer lookup(TableIdentifier table, List<?> keys) {
    ObjectNode query = query("lookup", table);
    query.set("keys", JSON.valueToTree(keys));
    return send(query);
  }

  /** A breadth-first traversal of the edge table ({@code src}, {@code dst}) from {@code seeds}. */
  public QueryAnswer traverse(TableIdentifier edges, List<?> seeds, int depth, int fanout) {
    ObjectNode query = query("traverse", edges).put("depth", depth).put("fanout", fanout);
    query.set("seeds", JSON.valueToTree(seeds));
    return send(query);
  }

  /**
   * The table's current snapshot ({@code snapshotId} null) or the one of that id; null when the
   * table has no snapshot yet.
   */
  public TableSnapshot snapshot(TableIdentifier table, Long snapshotId) {
    ObjectNode query = query("snapshot", table);
    if (snapshotId != null) {
      query.putObject("snapshot").put("id", snapshotId);
    }
    JsonNode body = post(query);
    if (body.path("snapshot").isNull() || body.path("snapshot").isMissingNode()) {
      return null;
    }
    return new TableSnapshot(body.get("snapshot").asLong(), body.path("sequence-number").asLong(),
        body.path("parent").isNull() ? null : body.path("parent").asLong(),
        body.path("timestamp-ms").asLong(), body.path("operation").asText(null),
        JSON.convertValue(body.path("summary"), SUMMARY));
  }

  /**
   * The rows inserted, updated and deleted from snapshot {@code fromSnapshotId} (null: the empty
   * table) to {@code toSnapshotId}, which must descend from it.
   */
  public TableDelta delta(TableIdentifier table, Long fromSnapshotId, long toSnapshotId) {
    ObjectNode query = query("delta", table);
    if (fromSnapshotId == null) {
      query.putNull("from");
    } else {
      query.putObject("from").put("id", fromSnapshotId);
    }
    query.putObject("snapshot").put("id", toSnapshotId);
    JsonNode body = post(query);
    List<TableDelta.Update> updated = new java.util.ArrayList<>();
    body.path("updated").forEach(change -> updated.add(new TableDelta.Update(
        JSON.convertValue(change.get("before"), ROW), JSON.convertValue(change.get("after"), ROW))));
    return new TableDelta(fromSnapshotId, toSnapshotId, JSON.convertValue(body.path("inserted"), ROWS),
        updated, JSON.convertValue(body.path("deleted"), ROWS));
  }

  /** Options of one scan. */
  public final class Scan {
    private final ObjectNode query;

    private Scan(TableIdentifier table) {
      this.query = query("scan", table);
    }

    public Scan select(String... columns) {
      ArrayNode select = query.putArray("select");
      for (String column : columns) {
        select.add(column);
      }
      return this;
    }

    public Scan where(Expression filter) {
      try {
        query.set("filter", JSON.readTree(ExpressionParser.toJson(filter)));
      } catch (IOException e) {
        throw new IllegalArgumentException("Cannot send filter " + filter + ": " + e.getMessage(), e);
      }
      return this;
    }

    public Scan limit(int rows) {
      query.put("limit", rows);
      return this;
    }

    public Scan atSnapshot(long snapshotId) {
      query.putObject("snapshot").put("id", snapshotId);
      return this;
    }

    public QueryAnswer run() {
      return send(query);
    }
  }

  private static ObjectNode query(String kind, TableIdentifier table) {
    return JSON.createObjectNode().put("kind", kind).put("table", TableIdentifiers.toString(table));
  }

  private QueryAnswer send(ObjectNode query) {
    try {
      return answer(post(query));
    } catch (IOException e) {
      throw new QueryFailedException(502, "BadAnswer", "Cannot read the answer of " + uri + ": " + e.getMessage());
    }
  }

  private JsonNode post(ObjectNode query) {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(query.toString())).build();
    HttpResponse<String> response = exchange(request);
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new QueryFailedException(response.statusCode(), "BadAnswer",
          "Cannot read the answer of " + uri + ": " + e.getMessage());
    }
    if (response.statusCode() != 200) {
      JsonNode error = body.path("error");
      throw new QueryFailedException(response.statusCode(), error.path("type").asText("Error"),
          error.path("message").asText(response.body()));
    }
    return body;
  }

  /** The node's answer; no answer (no connection, or a broken one) fails without a status. */
  private HttpResponse<String> exchange(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      String what = connectFailure(e) ? "Cannot connect to " : "Cannot get an answer from ";
      throw QueryFailedException.noAnswer(what + address() + " (" + uri + "): " + reason(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw QueryFailedException.noAnswer("Interrupted querying " + uri, e);
    }
  }

  private String address() {
    int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    return uri.getHost() + ":" + port;
  }

  private static boolean connectFailure(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The first message along the cause chain: the HTTP client's refusals carry none, and an
   * unknown host shows only as an {@link UnresolvedAddressException}.
   */
  private static String reason(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException) {
        return "unknown host";
      }
      if (t.getMessage() != null) {
        return t.getMessage();
      }
    }
    return e instanceof ConnectException ? "connection refused" : e.getClass().getSimpleName();
  }

  private static QueryAnswer answer(JsonNode body) throws IOException {
    JsonNode snapshot = body.get("snapshot");
    List<Map<String, Object>> rows = body.has("rows") ? JSON.convertValue(body.get("rows"), ROWS) : List.of();
    return new QueryAnswer(snapshot == null || snapshot.isNull() ? null : snapshot.asLong(), rows,
        body.path("truncated").asBoolean(false), body.get("vertices"), body.get("edges"), body.get("paths"));
  }
}
