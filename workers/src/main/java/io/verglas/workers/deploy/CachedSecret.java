package io.verglas.workers.deploy;

import io.verglas.workers.harness.SecretUnavailableException;
import io.verglas.workers.webhook.WebhookSecret;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A webhook trigger's secret read through its reference and kept for {@value #TTL_SECONDS}
 * seconds: a rotated secret is verified against within that bound, and a burst of requests
 * reads the file once. A reference that does not resolve gives no secret (the trigger then
 * accepts the admin token only), logged once per read.
 */
final class CachedSecret implements WebhookSecret {
  static final long TTL_SECONDS = 5;
  private static final Logger LOG = LoggerFactory.getLogger(CachedSecret.class);
  private final String deployment;
  private final String trigger;
  private final String reference;
  private final Map<String, String> env;
  private final long ttlNanos;
  private final LongSupplier nanoTime;
  private Optional<String> value;
  private long readAt;

  CachedSecret(String deployment, String trigger, String reference, Map<String, String> env,
      Duration ttl, LongSupplier nanoTime) {
    this.deployment = deployment;
    this.trigger = trigger;
    this.reference = reference;
    this.env = env;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
  }

  /** The secret of {@code reference} for a trigger, cached {@value #TTL_SECONDS} s. */
  static CachedSecret of(String deployment, String trigger, String reference,
      Map<String, String> env) {
    return new CachedSecret(deployment, trigger, reference, env,
        Duration.ofSeconds(TTL_SECONDS), System::nanoTime);
  }

  @Override
  public synchronized Optional<String> current() {
    long now = nanoTime.getAsLong();
    if (value == null || now - readAt >= ttlNanos) {
      value = read();
      readAt = now;
    }
    return value;
  }

  private Optional<String> read() {
    try {
      String secret = SecretReferences.resolve(deployment, "webhook " + trigger, reference, env);
      return secret.isEmpty() ? Optional.empty() : Optional.of(secret);
    } catch (SecretUnavailableException e) {
      LOG.warn("{}; webhook trigger {} accepts the admin token only", e.getMessage(), trigger);
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return "CachedSecret[" + reference + "]"; // the reference, never the value
  }
}
