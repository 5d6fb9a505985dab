package io.verglas.cli.local;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.verglas.workers.webhook.WebhookEndpoint;
import io.verglas.workers.webhook.WebhookReply;
import io.verglas.workers.webhook.WebhookRequest;
import io.verglas.workers.webhook.WebhookSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The admin endpoint's webhook routes, {@code POST /v1/webhooks/<deployment>[/<trigger>]}
 * ({@link AdminRoute#WEBHOOK}). The admin server starts before the workers, so the route is
 * bound late: until {@link #serve} it answers 503 with the reason ({@link #off}: workers are
 * off, or still starting). {@link #check} runs on the event loop (the endpoint's in-memory
 * target lookup, no I/O); {@link #handle} on an admin worker (it enqueues on PostgreSQL).
 */
final class AdminWebhooks {
  private final WebhookSettings settings;
  private volatile WebhookEndpoint endpoint;
  private volatile String unavailable = "the workers are starting";

  AdminWebhooks(WebhookSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /** Authentication and bounds of the route (the stack's admin token, the body limit). */
  WebhookSettings settings() {
    return settings;
  }

  /** Serves the route with {@code value} from now on. */
  void serve(WebhookEndpoint value) {
    this.endpoint = Objects.requireNonNull(value, "endpoint");
  }

  /** Answers 503 with {@code reason} (why workers are off) from now on. */
  void off(String reason) {
    this.endpoint = null;
    this.unavailable = "workers are " + reason;
  }

  /** The refusal of a request head, or empty to read its body; on the event loop. */
  Optional<FullHttpResponse> check(HttpRequest head, String path) {
    WebhookEndpoint served = endpoint;
    if (served == null) {
      return Optional.of(AdminResponses.error(HttpResponseStatus.SERVICE_UNAVAILABLE,
          "Cannot accept webhook: " + unavailable));
    }
    return served.check(head.method().name(), path, headers(head.headers())).map(AdminWebhooks::response);
  }

  /** Answers a whole request (enqueues its job); off the event loop. */
  FullHttpResponse handle(FullHttpRequest request, String path) {
    WebhookEndpoint served = endpoint;
    if (served == null) {
      return AdminResponses.error(HttpResponseStatus.SERVICE_UNAVAILABLE,
          "Cannot accept webhook: " + unavailable);
    }
    return response(served.handle(new WebhookRequest(request.method().name(), path,
        headers(request.headers()), ByteBufUtil.getBytes(request.content()))));
  }

  private static Map<String, String> headers(HttpHeaders headers) {
    Map<String, String> map = new LinkedHashMap<>();
    headers.forEach(h -> map.merge(h.getKey(), h.getValue(), (a, b) -> a + ", " + b));
    return map;
  }

  private static FullHttpResponse response(WebhookReply reply) {
    FullHttpResponse response = AdminResponses.json(HttpResponseStatus.valueOf(reply.status()),
        reply.json());
    reply.headers().forEach(response.headers()::set);
    return response;
  }
}
