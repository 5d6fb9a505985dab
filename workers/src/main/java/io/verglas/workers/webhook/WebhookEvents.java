package io.verglas.workers.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CloudEvent a webhook request becomes: type {@value #TYPE}, source the trigger's route
 * ({@code /v1/webhooks/<deployment>/<trigger>}, whichever route was posted to), id the job
 * identity, time of receipt, data the body with
 * its {@code Content-Type} (a JSON body stays JSON in the stored event, any other is base64).
 * Request headers become extensions named {@code http} + the header's letters and digits,
 * lower-case, at most 20 characters ({@code X-GitHub-Event} → {@code httpxgithubevent}), up to
 * the configured count and value length; credentials ({@code Authorization}, {@code Cookie},
 * the signature) and hop-by-hop headers never do.
 */
public final class WebhookEvents {
  public static final String TYPE = "io.verglas.webhook";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> WITHHELD = Set.of("authorization", "proxy-authorization",
      "cookie", WebhookSignature.SIGNATURE, "connection", "keep-alive", "transfer-encoding",
      "content-length", "upgrade", "te", "trailer");
  private static final int MAX_EXTENSION_NAME = 20;

  private WebhookEvents() {}

  /** The event of {@code request}; an IllegalArgumentException if a JSON body is not JSON. */
  static CloudEvent of(WebhookRequest request, String source, String identity, Instant received,
      WebhookSettings settings) {
    String contentType = request.header("content-type");
    String type = contentType == null ? "application/octet-stream" : contentType;
    if (isJson(type) && request.body().length > 0) {
      requireJson(request.body());
    }
    CloudEventBuilder event = CloudEventBuilder.v1().withId(identity)
        .withSource(URI.create(source)).withType(TYPE)
        .withTime(OffsetDateTime.ofInstant(received, ZoneOffset.UTC));
    if (request.body().length > 0) {
      event.withData(type, request.body());
    }
    addHeaders(event, request.headers(), settings);
    return event.build();
  }

  /** The extension name of a header, or null if it has no letter or digit. */
  static String extensionName(String header) {
    StringBuilder name = new StringBuilder("http");
    for (char c : header.toLowerCase(Locale.ROOT).toCharArray()) {
      if (name.length() < MAX_EXTENSION_NAME && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
        name.append(c);
      }
    }
    return name.length() == 4 ? null : name.toString();
  }

  private static void addHeaders(CloudEventBuilder event, Map<String, String> headers,
      WebhookSettings settings) {
    Set<String> used = new HashSet<>();
    for (Map.Entry<String, String> header : headers.entrySet()) {
      String name = extensionName(header.getKey());
      if (used.size() >= settings.maxHeaders()) {
        return;
      }
      if (name != null && !WITHHELD.contains(header.getKey())
          && header.getValue().length() <= settings.maxHeaderChars() && used.add(name)) {
        event.withExtension(name, header.getValue());
      }
    }
  }

  private static boolean isJson(String contentType) {
    String media = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return media.equals("application/json") || media.endsWith("+json") || media.equals("text/json");
  }

  private static void requireJson(byte[] body) {
    try {
      JSON.readTree(body);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("the body is declared JSON but is not: "
          + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
    }
  }
}
