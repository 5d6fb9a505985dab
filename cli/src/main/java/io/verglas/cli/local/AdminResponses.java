package io.verglas.cli.local;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The admin endpoint's whole responses: JSON, text and HTML bodies, errors as {@code {"error": ...}}. */
final class AdminResponses {
  private static final ObjectMapper JSON = new ObjectMapper();

  private AdminResponses() {}

  static FullHttpResponse json(HttpResponseStatus status, String body) {
    return whole(status, "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  static FullHttpResponse text(String contentType, String body) {
    return whole(HttpResponseStatus.OK, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  /** A page: never cached (it is the current build's), and no framing by other origins. */
  static FullHttpResponse html(byte[] bytes) {
    FullHttpResponse response = whole(HttpResponseStatus.OK, "text/html; charset=utf-8", bytes);
    response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store")
        .set("X-Frame-Options", "DENY")
        .set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'");
    return response;
  }

  private static FullHttpResponse whole(HttpResponseStatus status, String contentType, byte[] bytes) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    return response;
  }

  static FullHttpResponse error(HttpResponseStatus status, String message) {
    try {
      return json(status, JSON.writeValueAsString(Map.of("error", message)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render an error message as JSON", e);
    }
  }

  static FullHttpResponse error(int status, String message) {
    return error(HttpResponseStatus.valueOf(status), message);
  }
}
