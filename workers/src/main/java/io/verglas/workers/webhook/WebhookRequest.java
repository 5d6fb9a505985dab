package io.verglas.workers.webhook;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One webhook request as the HTTP server received it.
 *
 * @param path the decoded path, e.g. {@code /v1/webhooks/orders}
 * @param headers header names (any case; stored lower-case) to their value, repeated headers
 *     joined with {@code ", "}
 * @param body the whole body (bounded by the server before it is read)
 */
public record WebhookRequest(String method, String path, Map<String, String> headers,
    byte[] body) {
  public WebhookRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    headers = lowerCase(headers);
    Objects.requireNonNull(body, "body");
  }

  /** The header's value, or null. */
  public String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  static Map<String, String> lowerCase(Map<String, String> headers) {
    Map<String, String> lower = new TreeMap<>();
    headers.forEach((name, value) -> lower.merge(name.toLowerCase(Locale.ROOT), value,
        (a, b) -> a + ", " + b));
    return Map.copyOf(lower);
  }
}
