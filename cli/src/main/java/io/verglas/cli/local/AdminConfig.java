package io.verglas.cli.local;

import io.verglas.events.feed.FeedBounds;
import java.time.Duration;
import java.util.Properties;

/**
 * Settings of the local stack's admin endpoint and of the change feed it serves; the defaults
 * suit one machine. {@link Builder#apply(Properties)} reads a config file's keys, which
 * {@link LocalSettings#ADMIN} declares.
 */
public final class AdminConfig {
  public static final Duration REQUEST_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
  public static final int MAX_CONNECTIONS_DEFAULT = 256;
  public static final int MAX_REQUESTS_DEFAULT = 8;
  public static final int MAX_FOLLOWERS_DEFAULT = 32;
  public static final Duration HEARTBEAT_DEFAULT = Duration.ofSeconds(15);

  private final boolean publicReads;
  private final Duration requestTimeout;
  private final int maxConnections;
  private final int maxRequests;
  private final int maxFollowers;
  private final Duration heartbeat;
  private final FeedBounds feedBounds;

  private AdminConfig(Builder b) {
    this.publicReads = b.publicReads;
    this.requestTimeout = b.requestTimeout;
    this.maxConnections = b.maxConnections;
    this.maxRequests = b.maxRequests;
    this.maxFollowers = b.maxFollowers;
    this.heartbeat = b.heartbeat;
    this.feedBounds = new FeedBounds(b.retainedEvents, b.retainedBytes, b.maxEventBytes);
  }

  public static AdminConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether reads ({@code /stats}, {@code GET /events}, {@code /maintenance}) need no token. */
  public boolean publicReads() { return publicReads; }

  /** How long a connection may take to send a whole request (head and body), or sit idle. */
  public Duration requestTimeout() { return requestTimeout; }

  /** Open connections at most; more are closed as they arrive. */
  public int maxConnections() { return maxConnections; }

  /** Requests being answered at once, follow streams aside; more get 503. */
  public int maxRequests() { return maxRequests; }

  /** Open follow streams at most; more get 503. */
  public int maxFollowers() { return maxFollowers; }

  /** Interval of the empty lines an idle follow stream carries. */
  public Duration heartbeat() { return heartbeat; }

  /** The change feed's bounds; its max event size also bounds a request's body. */
  public FeedBounds feedBounds() { return feedBounds; }

  /** Builder; each setter validates its value, {@link #build()} the feed bounds together. */
  public static final class Builder {
    private boolean publicReads;
    private Duration requestTimeout = REQUEST_TIMEOUT_DEFAULT;
    private int maxConnections = MAX_CONNECTIONS_DEFAULT;
    private int maxRequests = MAX_REQUESTS_DEFAULT;
    private int maxFollowers = MAX_FOLLOWERS_DEFAULT;
    private Duration heartbeat = HEARTBEAT_DEFAULT;
    private int retainedEvents = FeedBounds.RETAINED_EVENTS_DEFAULT;
    private long retainedBytes = FeedBounds.RETAINED_BYTES_DEFAULT;
    private int maxEventBytes = FeedBounds.MAX_EVENT_BYTES_DEFAULT;

    public Builder publicReads(boolean value) {
      this.publicReads = value;
      return this;
    }

    public Builder requestTimeout(Duration value) {
      this.requestTimeout = positive(value, "request timeout");
      return this;
    }

    public Builder maxConnections(int value) {
      this.maxConnections = atLeastOne(value, "max connections");
      return this;
    }

    public Builder maxRequests(int value) {
      this.maxRequests = atLeastOne(value, "max requests");
      return this;
    }

    public Builder maxFollowers(int value) {
      this.maxFollowers = atLeastOne(value, "max followers");
      return this;
    }

    public Builder heartbeat(Duration value) {
      this.heartbeat = positive(value, "heartbeat");
      return this;
    }

    public Builder retainedEvents(int value) {
      this.retainedEvents = atLeastOne(value, "retained events");
      return this;
    }

    public Builder maxEventBytes(int value) {
      this.maxEventBytes = atLeastOne(value, "max event bytes");
      return this;
    }

    public Builder retainedBytes(long value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid retained event bytes: " + value);
      }
      this.retainedBytes = value;
      return this;
    }

    /** Applies the {@code local.admin-*} and {@code local.events-*} keys of a config file. */
    public Builder apply(Properties props) {
      LocalSettings.ADMIN.applyProperties(this, props, LocalSettings.PREFIX);
      return this;
    }

    public AdminConfig build() {
      return new AdminConfig(this);
    }




    private static int atLeastOne(int value, String what) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value + " (at least 1)");
      }
      return value;
    }

    private static Duration positive(Duration value, String what) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value);
      }
      return value;
    }
  }
}
