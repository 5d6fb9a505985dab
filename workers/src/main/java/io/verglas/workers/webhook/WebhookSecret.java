package io.verglas.workers.webhook;

import java.util.Objects;
import java.util.Optional;

/**
 * A webhook trigger's signing secret as it is now: read when a request is verified, so a
 * rotated secret applies without a redeploy (an implementation may cache it briefly).
 */
@FunctionalInterface
public interface WebhookSecret {
  /** No secret: only the admin bearer token is accepted. */
  WebhookSecret NONE = Optional::empty;

  /**
   * The Standard Webhooks signing secret ({@code whsec_<base64 key>}, or any other non-empty
   * string, whose UTF-8 bytes are then the key); empty when only the admin token is accepted.
   */
  Optional<String> current();

  /** A secret that never changes. */
  static WebhookSecret of(String value) {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("Cannot use webhook secret: it is empty");
    }
    Optional<String> fixed = Optional.of(value);
    return () -> fixed;
  }
}
