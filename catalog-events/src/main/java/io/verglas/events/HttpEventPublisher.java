package io.verglas.events;

import io.verglas.events.publish.Backoff;
import io.verglas.events.publish.DurableOutbox;
import io.verglas.events.publish.OutboxSender;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes events to a change feed over HTTP ({@code POST <feed>}) through a durable outbox.
 *
 * <p>Design. Publishing happens after a commit succeeded, on the committer's thread, so it must
 * neither fail nor stall the commit, and it must not lose the event when the feed is slow or
 * down. {@link #publish} therefore only appends the event to a {@link DurableOutbox} on local
 * disk and forces it (no network), then returns; an {@link OutboxSender} thread delivers the
 * outbox in order, retrying with capped backoff for as long as the publisher runs, and moves the
 * outbox's durable "delivered up to" marker after each accepted event. A publisher that starts
 * on the same directory after a stop or a crash sends what its predecessor left first. Event
 * ids are deterministic and the feed drops ids it already has, so an event sent again after a
 * crash appears in the feed once: at-least-once delivery plus deduplication.
 *
 * <p>Credential. With a token, every request carries {@code Authorization: Bearer <token>}. A
 * refused credential (401, 403) is logged once when the refusals start (then only every 100
 * attempts while they last) and the events wait in the outbox until an operator fixes it; it
 * is never taken for success. The token is in no log and no {@link #toString}.
 *
 * <p>Bounds. The outbox holds at most {@code outboxMaxBytes} on disk; past it the oldest
 * events are dropped with an ERROR (see {@link DurableOutbox}; their commits are in the catalog).
 * {@link #close} delivers what it can within {@code closeTimeout} and leaves the rest on disk.
 */
public final class HttpEventPublisher implements EventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(HttpEventPublisher.class);
  public static final Duration REQUEST_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
  public static final Duration CLOSE_TIMEOUT_DEFAULT = Duration.ofSeconds(5);

  private final URI feed;
  private final boolean authenticated;
  private final DurableOutbox outbox;
  private final OutboxSender sender;
  private final Duration closeTimeout;
  private boolean closed;

  private HttpEventPublisher(Builder b, DurableOutbox outbox, List<DurableOutbox> abandoned) {
    this.feed = b.feed;
    this.authenticated = b.token != null;
    this.outbox = outbox;
    this.closeTimeout = b.closeTimeout;
    Path slot = outbox.directory();
    this.sender = new OutboxSender(slot.getParent().getFileName() + "/" + slot.getFileName(),
        outbox, abandoned, new HttpDelivery(b.feed, b.token, b.requestTimeout), b.backoff);
  }

  /**
   * Checks a bearer token: non-empty printable ASCII without spaces, as an HTTP header value
   * takes it. The message never shows the value.
   */
  public static String checkToken(String token) {
    if (token == null || token.isEmpty() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      throw new IllegalArgumentException("Invalid feed token: it must be printable ASCII without"
          + " spaces (value not shown)");
    }
    return token;
  }

  /** A builder for a publisher to {@code feed} (the {@code POST} URI of the change feed). */
  public static Builder builder(URI feed) {
    return new Builder(feed);
  }

  @Override
  public void publish(CatalogEvent event) {
    append(event);
  }

  @Override
  public void publish(TableMaintainedEvent event) {
    append(event);
  }

  private void append(FeedEvent event) {
    try {
      outbox.append(event);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot publish event " + event.id() + ": cannot write the"
          + " outbox " + outbox + ": " + e.getMessage(), e);
    }
    sender.wake();
  }

  /** Undelivered events dropped to keep the outbox within its bound. */
  public long dropped() {
    return outbox.dropped();
  }

  /** Events the feed refused for good (malformed, too large), skipped. */
  public long rejected() {
    return sender.rejected();
  }

  /** The directory of this publisher's outbox. */
  public Path outboxDirectory() {
    return outbox.directory();
  }

  /** Delivers what it can within the close timeout; the rest stays in the outbox. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    sender.close(closeTimeout);
    long pending = outbox.pendingBytes();
    if (pending > 0) {
      LOG.info("Leaving {} bytes of undelivered events in the outbox {} for the next start",
          pending, outbox);
    }
    try {
      outbox.close();
    } catch (IOException e) {
      LOG.warn("Cannot close the outbox {}: {}", outbox, e.toString());
    }
  }

  @Override
  public String toString() {
    return "HttpEventPublisher{feed=" + feed + ", outbox=" + outbox.directory()
        + ", credential=" + (authenticated ? "bearer" : "none") + "}";
  }

  /** Builds an {@link HttpEventPublisher}; the outbox directory is required. */
  public static final class Builder {
    private final URI feed;
    private String token;
    private Path outboxDir;
    private long outboxMaxBytes = DurableOutbox.MAX_BYTES_DEFAULT;
    private Duration requestTimeout = REQUEST_TIMEOUT_DEFAULT;
    private Duration closeTimeout = CLOSE_TIMEOUT_DEFAULT;
    private Backoff backoff = Backoff.DEFAULT;

    private Builder(URI feed) {
      this.feed = Objects.requireNonNull(feed, "feed");
    }

    /** The bearer token sent with every request; null sends none. */
    public Builder token(String value) {
      this.token = value == null ? null : checkToken(value);
      return this;
    }

    /**
     * The directory of outboxes; this publisher claims a free slot in it, and sends what
     * earlier publishers of the directory left undelivered.
     */
    public Builder outboxDir(Path dir) {
      this.outboxDir = Objects.requireNonNull(dir, "outbox dir");
      return this;
    }

    public Builder outboxMaxBytes(long bytes) {
      this.outboxMaxBytes = DurableOutbox.checkMaxBytes(bytes);
      return this;
    }

    /** How long one request may take before it counts as failed (and is retried). */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive("request timeout", timeout);
      return this;
    }

    /** How long {@link #close} may spend delivering what is left. */
    public Builder closeTimeout(Duration timeout) {
      this.closeTimeout = positive("close timeout", timeout);
      return this;
    }

    public Builder backoff(Backoff value) {
      this.backoff = Objects.requireNonNull(value, "backoff");
      return this;
    }

    private static Duration positive(String what, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value + " (must be > 0)");
      }
      return value;
    }

    /**
     * Claims an outbox and starts the sender.
     *
     * @throws UncheckedIOException if no outbox can be opened in the directory
     */
    public HttpEventPublisher build() {
      if (outboxDir == null) {
        throw new IllegalStateException("Cannot build the event publisher for " + feed
            + ": no outbox directory");
      }
      try {
        DurableOutbox outbox = DurableOutbox.claim(outboxDir, outboxMaxBytes);
        List<DurableOutbox> abandoned = claimAbandoned(outbox);
        HttpEventPublisher publisher = new HttpEventPublisher(this, outbox, abandoned);
        LOG.info("Publishing events to {} through the outbox {} ({} bytes to send, {} abandoned"
            + " outboxes to drain first)", feed, outbox, outbox.pendingBytes(), abandoned.size());
        publisher.sender.start();
        return publisher;
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot start the event publisher for " + feed + ": "
            + e.getMessage(), e);
      }
    }

    private List<DurableOutbox> claimAbandoned(DurableOutbox own) throws IOException {
      try {
        return DurableOutbox.claimAbandoned(outboxDir, outboxMaxBytes);
      } catch (IOException | RuntimeException e) {
        own.close();
        throw e;
      }
    }
  }
}
