package io.verglas.workers.subscribe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.verglas.sdk.FeedConnection;
import io.verglas.workers.event.CloudEventCodec;
import io.verglas.workers.schedule.JobSink;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.SchedulerException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the change feed ({@code GET /events?follow=true}, every table) and enqueues one job
 * per event and matching {@link Subscription}, with the identity
 * {@code <deployment>/<subscription>/<event id>}: Iceberg commits (and any other event type on
 * the feed) trigger the deployments subscribed to them.
 *
 * <p>Exactly one job per event, across restarts. The subscriber resumes from the position
 * stored under its name ({@link FeedPositions}); a position is saved only after the jobs of the
 * events before it were enqueued (at once after an event that matched; after others, at the
 * next idle heartbeat or every {@value #SAVE_EVERY} lines). Events read again after a crash
 * enqueue nothing, as their identities exist. A failed enqueue reconnects from the event, after
 * a backoff ({@link FeedConnection}). A subscriber with no stored position starts at
 * {@code startPosition} (1: the whole retained feed).
 *
 * <p>Design: one daemon thread reads the feed's JSON lines and enqueues in line order (a slow
 * queue slows the reading, and TCP the server). A refusal (401, 403, 400) stops the subscriber;
 * {@link #failure()} says why. Memory: one line at a time.
 */
public final class EventSubscriber implements AutoCloseable {
  static final int SAVE_EVERY = 1000;
  private static final Logger LOG = LoggerFactory.getLogger(EventSubscriber.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FEED_SEQUENCE = "feedsequence";

  private final String name;
  private final URI events;
  private final List<Subscription> subscriptions;
  private final JobSink jobs;
  private final FeedPositions positions;
  private final Clock clock;
  private final FeedConnection connection;
  private final AtomicLong enqueued = new AtomicLong();
  private final Thread reader;
  private volatile String failure;
  private volatile long next;
  private long unsaved;

  private EventSubscriber(Builder b) {
    this.name = b.name;
    this.events = b.events;
    this.connection = new FeedConnection(HttpClient.newHttpClient(), events, b.token);
    this.subscriptions = List.copyOf(b.subscriptions);
    this.jobs = b.jobs;
    this.positions = b.positions;
    this.clock = b.clock;
    this.next = positions.load(name).orElse(b.startPosition);
    this.reader = new Thread(this::readLoop, "verglas-subscriber-" + name);
    reader.setDaemon(true);
  }

  /**
   * @param name the subscriber's name: where its position is stored
   * @param events the change feed ({@code http://host:port/events})
   */
  public static Builder builder(String name, URI events, JobSink jobs, FeedPositions positions) {
    return new Builder(name, events, jobs, positions);
  }

  public EventSubscriber start() {
    reader.start();
    return this;
  }

  /** The feed position the subscriber reads next. */
  public long position() {
    return next;
  }

  /** How many jobs this instance added (duplicates of existing jobs not counted). */
  public long enqueued() {
    return enqueued.get();
  }

  /** Why the subscriber stopped, or null while it runs. */
  public String failure() {
    return failure;
  }

  /**
   * Stops reading and, once the reader has ended, saves the position it reached (the jobs of
   * every event before it were enqueued), so a subscriber started next under the same name
   * resumes there rather than at the last heartbeat's save.
   */
  @Override
  public void close() {
    connection.close();
    reader.interrupt();
    try {
      reader.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!reader.isAlive()) {
      try {
        saveIfBehind();
      } catch (SchedulerException e) {
        LOG.warn("Subscriber {} cannot save its position on close: {}", name, e.getMessage());
      }
    }
  }

  private void readLoop() {
    try {
      connection.run(() -> "from=" + next + "&follow=true", this::take,
          dropped -> LOG.warn("Subscriber {} reconnects from position {}: {}", name, next,
              dropped.toString()));
    } catch (FeedConnection.Refused e) {
      stop("Cannot follow the change feed " + events + ": " + e.getMessage(), null);
    } catch (RuntimeException e) {
      stop("Cannot follow the change feed " + events + ": " + e, e);
    }
  }

  private void stop(String why, Exception cause) {
    failure = why;
    LOG.error("Subscriber {} stopped: {}", name, why, cause);
  }

  /** One line: a heartbeat saves a position still unsaved; a failed enqueue reconnects. */
  private void take(String line) throws IOException {
    try {
      if (line.isBlank()) {
        saveIfBehind();
      } else {
        accept(line);
      }
    } catch (SchedulerException e) {
      throw new IOException("Cannot enqueue or save the position: " + e.getMessage(), e);
    }
  }

  /** Enqueues the line's jobs, then moves past it. */
  private void accept(String line) {
    ObjectNode root;
    try {
      root = (ObjectNode) JSON.readTree(line);
    } catch (IOException | ClassCastException e) {
      LOG.warn("Subscriber {} skips a feed line that is not a JSON object: {}", name, e.toString());
      return; // the next event moves the position past it
    }
    long sequence = root.path(FEED_SEQUENCE).asLong(0);
    root.remove(FEED_SEQUENCE); // a feed detail, and a 64-bit number CloudEvents cannot carry
    boolean matched = false;
    try {
      CloudEvent event = CloudEventCodec.fromJson(root.toString());
      for (Subscription subscription : subscriptions) {
        if (subscription.matches(event)) {
          matched = true;
          if (jobs.enqueue(NewJob.builder(subscription.jobIdentity(event),
              subscription.deployment(), event).build())) {
            enqueued.incrementAndGet();
          }
        }
      }
    } catch (IllegalArgumentException e) {
      LOG.warn("Subscriber {} skips feed event {}: {}", name, sequence, e.getMessage());
    }
    if (sequence >= next) {
      next = sequence + 1;
      unsaved++;
    }
    if (matched || unsaved >= SAVE_EVERY) {
      saveIfBehind();
    }
  }

  private void saveIfBehind() {
    if (unsaved > 0) {
      positions.save(name, next, clock.instant());
      unsaved = 0;
    }
  }

  /** Builds an {@link EventSubscriber}; name, feed, job sink and positions are required. */
  public static final class Builder {
    private final String name;
    private final URI events;
    private final JobSink jobs;
    private final FeedPositions positions;
    private final List<Subscription> subscriptions = new ArrayList<>();
    private String token;
    private long startPosition = 1;
    private Clock clock = Clock.systemUTC();

    private Builder(String name, URI events, JobSink jobs, FeedPositions positions) {
      this.name = Objects.requireNonNull(name, "name");
      this.events = Objects.requireNonNull(events, "events");
      this.jobs = Objects.requireNonNull(jobs, "jobs");
      this.positions = Objects.requireNonNull(positions, "positions");
    }

    /** The feed's read token; none by default. */
    public Builder token(String value) {
      this.token = value;
      return this;
    }

    public Builder subscription(Subscription value) {
      subscriptions.add(Objects.requireNonNull(value, "subscription"));
      return this;
    }

    /** Where a subscriber with no stored position starts (1, the default: the whole feed). */
    public Builder startPosition(long value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid start position of subscriber " + name + ": "
            + value + " (1 or more)");
      }
      this.startPosition = value;
      return this;
    }

    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** The subscriber, its position loaded; {@link EventSubscriber#start()} starts it. */
    public EventSubscriber build() {
      return new EventSubscriber(this);
    }
  }
}
