package io.verglas.cache.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin endpoints:
 * <ul>
 *   <li>{@code GET /health}: {@code {"status": "ok" | "degraded", ...}}, always 200 while the
 *       node serves (a degraded node still serves cached bytes);
 *   <li>{@code GET /stats}: {@link io.verglas.cache.CacheStats} as JSON, with per-tier figures;
 *   <li>{@code GET /metrics}: the same in the Prometheus text format;
 *   <li>{@code POST /purge?bucket=B&prefix=P}: forgets everything cached under B/P (prefix may
 *       be empty or absent: the whole bucket) and answers what was removed;
 *   <li>{@code GET /heat?table=ns.t[&limit=N]}: the table's hot partitions and, in each, its hot
 *       columns, by time-decayed read counts (at most N partitions, default
 *       {@value #DEFAULT_HEAT_LIMIT}); 404 when the node runs without Iceberg awareness;
 *   <li>{@code GET /cluster}: the cache cluster's members (capacity, state, ownership share) and
 *       this node's peer hit, miss, fallback and served counters; 404 when the node works alone.
 * </ul>
 * Requests are validated on arrival: unknown paths get 404, wrong methods 405, a purge without
 * a bucket 400, all with a JSON {@code {"error": ...}} body. If a token is configured, every
 * endpoint but /health requires {@code Authorization: Bearer <token>} (401 otherwise).
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger LOG = LoggerFactory.getLogger(AdminHandler.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_TYPE = "application/json";
  static final int DEFAULT_HEAT_LIMIT = 50;

  private final CacheAdmin admin;
  private final byte[] token;

  AdminHandler(CacheAdmin admin, String token) {
    this.admin = admin;
    this.token = token == null ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    FullHttpResponse response;
    try {
      response = handle(request);
    } catch (RuntimeException e) {
      LOG.warn("Admin request {} {} failed", request.method(), request.uri(), e);
      response = error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "Cannot answer: " + e);
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    HttpUtil.setKeepAlive(response, keepAlive);
    var written = ctx.writeAndFlush(response);
    if (!keepAlive) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private FullHttpResponse handle(FullHttpRequest request) {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String path = uri.path();
    HttpMethod method = request.method();
    if (!List.of("/health", "/stats", "/metrics", "/purge", "/heat", "/cluster").contains(path)) {
      return error(HttpResponseStatus.NOT_FOUND, "No such admin endpoint: " + path
          + " (try /health, /stats, /metrics, /heat, /cluster, POST /purge)");
    }
    if (token != null && !path.equals("/health") && !authorized(request)) {
      return error(HttpResponseStatus.UNAUTHORIZED, "Missing or wrong bearer token");
    }
    boolean read = HttpMethod.GET.equals(method);
    switch (path) {
      case "/health":
        if (!read) {
          return methodNotAllowed(method, path, "GET");
        }
        return json(HttpResponseStatus.OK, toJson(admin.health()));
      case "/stats":
        if (!read) {
          return methodNotAllowed(method, path, "GET");
        }
        return json(HttpResponseStatus.OK, admin.stats().toJson());
      case "/metrics":
        if (!read) {
          return methodNotAllowed(method, path, "GET");
        }
        return response(HttpResponseStatus.OK, PrometheusFormat.CONTENT_TYPE,
            PrometheusFormat.render(admin.stats(), admin.clusterStats(), admin.writeBackStats()));
      case "/heat":
        if (!read) {
          return methodNotAllowed(method, path, "GET");
        }
        return heat(uri);
      case "/cluster":
        if (!read) {
          return methodNotAllowed(method, path, "GET");
        }
        Map<String, Object> cluster = admin.cluster();
        return cluster == null
            ? error(HttpResponseStatus.NOT_FOUND, "Cannot report the cluster: this node works alone")
            : json(HttpResponseStatus.OK, toJson(cluster));
      default:
        if (!HttpMethod.POST.equals(method)) {
          return methodNotAllowed(method, path, "POST");
        }
        String bucket = first(uri, "bucket");
        if (bucket == null || bucket.isEmpty()) {
          return error(HttpResponseStatus.BAD_REQUEST, "Cannot purge: the bucket parameter is required");
        }
        String prefix = first(uri, "prefix");
        return json(HttpResponseStatus.OK, admin.purge(bucket, prefix == null ? "" : prefix).toJson());
    }
  }

  private FullHttpResponse heat(QueryStringDecoder uri) {
    String table = first(uri, "table");
    if (table == null || table.isBlank()) {
      return error(HttpResponseStatus.BAD_REQUEST, "Cannot report heat: the table parameter is required (table=ns.name)");
    }
    String limitParam = first(uri, "limit");
    int limit = DEFAULT_HEAT_LIMIT;
    if (limitParam != null) {
      try {
        limit = Integer.parseInt(limitParam);
      } catch (NumberFormatException e) {
        limit = 0;
      }
      if (limit <= 0) {
        return error(HttpResponseStatus.BAD_REQUEST, "Cannot report heat: invalid limit " + limitParam
            + " (must be a positive integer)");
      }
    }
    Map<String, Object> report = admin.heat(table, limit);
    if (report == null) {
      return error(HttpResponseStatus.NOT_FOUND, "Cannot report heat of " + table
          + ": the node runs without Iceberg awareness");
    }
    return json(HttpResponseStatus.OK, toJson(report));
  }

  private boolean authorized(FullHttpRequest request) {
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    return header != null && MessageDigest.isEqual(token, header.getBytes(StandardCharsets.UTF_8));
  }

  private static String first(QueryStringDecoder uri, String name) {
    List<String> values = uri.parameters().get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  private static FullHttpResponse methodNotAllowed(HttpMethod method, String path, String allowed) {
    FullHttpResponse r = error(HttpResponseStatus.METHOD_NOT_ALLOWED,
        "Cannot " + method + " " + path + ": use " + allowed);
    r.headers().set(HttpHeaderNames.ALLOW, allowed);
    return r;
  }

  private static FullHttpResponse error(HttpResponseStatus status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return json(status, toJson(body));
  }

  private static FullHttpResponse json(HttpResponseStatus status, String body) {
    return response(status, JSON_TYPE, body);
  }

  private static FullHttpResponse response(HttpResponseStatus status, String type, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type).setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    return r;
  }

  private static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render JSON", e);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("Closing an admin connection after an error", cause);
    ctx.close();
  }
}
