package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed S3 request line and headers: bucket and key (path style, or virtual-host style when a
 * domain is configured), query parameters both raw (for signing) and decoded, and the request id.
 */
final class S3Request {
  /** A query parameter as sent and as decoded; value is "" when the parameter had no '='. */
  record QueryParam(String rawName, String rawValue, String name, String value) {}

  final HttpMethod method;
  final String rawPath;
  final List<QueryParam> query;
  final Map<String, String> params;
  final HttpHeaders headers;
  final String bucket;
  final String key;
  final String requestId;
  final boolean keepAlive;
  /** The reserved first path segment ({@link ServiceEndpoint#RESERVED}) it is under, or null. */
  final String service;

  private S3Request(HttpMethod method, String rawPath, List<QueryParam> query, HttpHeaders headers,
      String bucket, String key, String requestId, boolean keepAlive, String service) {
    this.method = method;
    this.rawPath = rawPath;
    this.query = query;
    if (query.isEmpty()) {
      this.params = Map.of();
    } else {
      Map<String, String> decoded = new LinkedHashMap<>();
      for (QueryParam p : query) {
        decoded.putIfAbsent(p.name(), p.value());
      }
      this.params = Collections.unmodifiableMap(decoded);
    }
    this.headers = headers;
    this.bucket = bucket;
    this.key = key;
    this.requestId = requestId;
    this.keepAlive = keepAlive;
    this.service = service;
  }

  static S3Request parse(HttpRequest request, String requestId, String virtualHostDomain) {
    String uri = request.uri();
    int q = uri.indexOf('?');
    String rawPath = q < 0 ? uri : uri.substring(0, q);
    String rawQuery = q < 0 ? "" : uri.substring(q + 1);
    if (rawPath.isEmpty()) {
      rawPath = "/";
    }
    if (!rawPath.startsWith("/")) {
      throw new S3Exception(S3ErrorCode.INVALID_URI, "Couldn't parse the specified URI: " + uri);
    }
    List<QueryParam> query = parseQuery(rawQuery, uri);
    String path = decode(rawPath, uri);
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    String vhostBucket = virtualHostBucket(request.headers().get(HttpHeaderNames.HOST), virtualHostDomain);
    String bucket;
    String key;
    String service = null;
    if (vhostBucket != null) {
      bucket = vhostBucket;
      key = path.length() > 1 ? path.substring(1) : null;
    } else {
      String rest = path.substring(1);
      int slash = rest.indexOf('/');
      bucket = slash < 0 ? rest : rest.substring(0, slash);
      key = slash < 0 || slash == rest.length() - 1 ? null : rest.substring(slash + 1);
      service = ServiceEndpoint.RESERVED.contains(bucket) ? bucket : null;
      if (bucket.isEmpty()) {
        bucket = null;
      }
    }
    return new S3Request(request.method(), rawPath, query, request.headers(), bucket,
        key == null ? null : checkKey(key), requestId, keepAlive, service);
  }

  /**
   * Refuses keys no origin should see, whatever it is: a NUL character, or a {@code ..} path
   * segment (a directory-backed origin would resolve it; S3 clients never produce one). Keys are
   * already valid UTF-8: percent-decoding refuses anything else.
   */
  static String checkKey(String key) {
    if (key.indexOf('\0') >= 0) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid key: it contains a NUL character");
    }
    for (int at = key.indexOf(".."); at >= 0; at = key.indexOf("..", at + 1)) {
      boolean segmentStart = at == 0 || key.charAt(at - 1) == '/';
      boolean segmentEnd = at + 2 == key.length() || key.charAt(at + 2) == '/';
      if (segmentStart && segmentEnd) {
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid key: it contains a '..' segment: " + key);
      }
    }
    return key;
  }

  private static String virtualHostBucket(String host, String domain) {
    if (domain == null || host == null) {
      return null;
    }
    String name = host;
    int colon = name.lastIndexOf(':');
    if (colon > 0 && name.indexOf(']') < colon) {
      name = name.substring(0, colon);
    }
    String suffix = "." + domain;
    if (name.length() > suffix.length() && name.toLowerCase(java.util.Locale.ROOT).endsWith(suffix)) {
      return name.substring(0, name.length() - suffix.length());
    }
    return null;
  }

  private static List<QueryParam> parseQuery(String rawQuery, String uri) {
    if (rawQuery.isEmpty()) {
      return List.of();
    }
    List<QueryParam> params = new ArrayList<>();
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String rawName = eq < 0 ? pair : pair.substring(0, eq);
      String rawValue = eq < 0 ? "" : pair.substring(eq + 1);
      params.add(new QueryParam(rawName, rawValue, decode(rawName, uri), decode(rawValue, uri)));
    }
    return params;
  }

  private static String decode(String raw, String uri) {
    try {
      return UriEncoding.decode(raw);
    } catch (IllegalArgumentException e) {
      throw new S3Exception(S3ErrorCode.INVALID_URI,
          "Couldn't parse the specified URI (" + e.getMessage() + "): " + uri);
    }
  }

  String header(CharSequence name) {
    return headers.get(name);
  }

  String param(String name) {
    return params.get(name);
  }

  boolean hasParam(String name) {
    return params.containsKey(name);
  }

  boolean isHead() {
    return HttpMethod.HEAD.equals(method);
  }

  /** The resource named in error documents. */
  String resource() {
    if (bucket == null) {
      return "/";
    }
    return key == null ? "/" + bucket : "/" + bucket + "/" + key;
  }
}
