package io.verglas.workers.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An answer to a webhook request: its status, JSON body and extra headers
 * ({@code WWW-Authenticate} with a 401, {@code Allow} with a 405).
 */
public record WebhookReply(int status, String json, Map<String, String> headers) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public WebhookReply {
    headers = Map.copyOf(headers);
  }

  /** An error answer: {@code {"error": message}}. */
  static WebhookReply error(int status, String message) {
    return error(status, message, Map.of());
  }

  static WebhookReply error(int status, String message, Map<String, String> headers) {
    ObjectNode body = JSON.createObjectNode().put("error", message);
    return new WebhookReply(status, body.toString(), headers);
  }

  /** 202 for a new job, 200 for a delivery already accepted (its job exists). */
  static WebhookReply accepted(String job, boolean added) {
    ObjectNode body = JSON.createObjectNode().put("job", job).put("duplicate", !added);
    return new WebhookReply(added ? 202 : 200, body.toString(), Map.of());
  }

  public byte[] body() {
    return json.getBytes(StandardCharsets.UTF_8);
  }
}
