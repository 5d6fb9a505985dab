package io.verglas.workers.webhook;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How the webhook endpoint authenticates and bounds requests.
 *
 * <ul>
 *   <li>{@code adminToken}: the stack's admin bearer token, accepted for every deployment; null
 *       to accept signed requests only
 *   <li>{@code maxBodyBytes}: largest body (64 KiB by default; 413 beyond). The body travels in
 *       the job's stored event (base64 unless it is JSON), so it must fit the queue's bound
 *   <li>{@code tolerance}: how far a signed request's {@code webhook-timestamp} may be from now
 *       (5 minutes, as Standard Webhooks recommends); older or newer is refused as a replay
 *   <li>{@code maxHeaders}: how many request headers become event extensions (32), each value
 *       at most {@code maxHeaderChars} (1 024) characters; the rest are left out
 * </ul>
 */
public final class WebhookSettings {
  public static final int MAX_BODY_BYTES_DEFAULT = 64 * 1024;
  public static final Duration TOLERANCE_DEFAULT = Duration.ofMinutes(5);
  public static final int MAX_HEADERS_DEFAULT = 32;
  public static final int MAX_HEADER_CHARS_DEFAULT = 1024;

  private final String adminToken;
  private final int maxBodyBytes;
  private final Duration tolerance;
  private final int maxHeaders;
  private final int maxHeaderChars;
  private final Clock clock;

  private WebhookSettings(Builder b) {
    this.adminToken = b.adminToken;
    this.maxBodyBytes = b.maxBodyBytes;
    this.tolerance = b.tolerance;
    this.maxHeaders = b.maxHeaders;
    this.maxHeaderChars = b.maxHeaderChars;
    this.clock = b.clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String adminToken() { return adminToken; }
  public int maxBodyBytes() { return maxBodyBytes; }
  public Duration tolerance() { return tolerance; }
  public int maxHeaders() { return maxHeaders; }
  public int maxHeaderChars() { return maxHeaderChars; }
  public Clock clock() { return clock; }

  /** Builds {@link WebhookSettings}; every option has a default. */
  public static final class Builder {
    private String adminToken;
    private int maxBodyBytes = MAX_BODY_BYTES_DEFAULT;
    private Duration tolerance = TOLERANCE_DEFAULT;
    private int maxHeaders = MAX_HEADERS_DEFAULT;
    private int maxHeaderChars = MAX_HEADER_CHARS_DEFAULT;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    public Builder adminToken(String value) {
      this.adminToken = value == null || value.isEmpty() ? null : value;
      return this;
    }

    public Builder maxBodyBytes(int value) {
      this.maxBodyBytes = positive("max body bytes", value);
      return this;
    }

    public Builder tolerance(Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid webhook timestamp tolerance: " + value);
      }
      this.tolerance = value;
      return this;
    }

    public Builder maxHeaders(int value) {
      this.maxHeaders = value < 0 ? positive("max headers", value) : value;
      return this;
    }

    public Builder maxHeaderChars(int value) {
      this.maxHeaderChars = positive("max header characters", value);
      return this;
    }

    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    public WebhookSettings build() {
      return new WebhookSettings(this);
    }

    private static int positive(String what, int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid webhook " + what + ": " + value
            + " (must be at least 1)");
      }
      return value;
    }
  }
}
