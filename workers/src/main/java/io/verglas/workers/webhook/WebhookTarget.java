package io.verglas.workers.webhook;

import java.util.Objects;

/**
 * A deployment that accepts webhooks, and its signing secret.
 *
 * @param secret the Standard Webhooks signing secret ({@code whsec_<base64 key>}, or any other
 *     string, whose UTF-8 bytes are then the key); null when only the admin bearer token is
 *     accepted
 */
public record WebhookTarget(String deployment, String secret) {
  public WebhookTarget {
    Objects.requireNonNull(deployment, "deployment");
    if (secret != null && secret.isEmpty()) {
      throw new IllegalArgumentException("Cannot accept webhooks for " + deployment
          + ": the signing secret is empty");
    }
  }

  @Override
  public String toString() {
    return "WebhookTarget[" + deployment + (secret == null ? "" : ", signed") + "]"; // never the secret
  }
}
