package io.verglas.cli.local;

import io.verglas.workers.schedule.JobSink;
import io.verglas.workers.subscribe.EventSubscriber;
import io.verglas.workers.subscribe.FeedPositions;
import io.verglas.workers.subscribe.Subscription;
import java.net.URI;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local plane's one change feed subscriber ({@link EventSubscriber}, named
 * {@value #NAME}), following the feed for the active deployments' event triggers. A subscriber
 * cannot change its subscriptions while it runs, so a new set restarts it: it saves its
 * position on close and the new one resumes there. It runs even with no subscriptions, so its
 * stored position keeps up with the feed and a later subscription does not replay history;
 * with no stored position it starts at the feed's current end.
 */
final class LocalSubscriptions implements AutoCloseable {
  static final String NAME = "local";
  private static final Logger LOG = LoggerFactory.getLogger(LocalSubscriptions.class);

  private final URI events;
  private final String token;
  private final FeedPositions positions;
  private final JobSink jobs;
  private final LongSupplier feedEnd;
  private List<Subscription> current;
  private EventSubscriber subscriber;
  private boolean closed;

  /**
   * @param token the feed's read token
   * @param feedEnd the feed position after its last event (where a first subscriber starts)
   */
  LocalSubscriptions(URI events, String token, FeedPositions positions, JobSink jobs,
      LongSupplier feedEnd) {
    this.events = events;
    this.token = token;
    this.positions = positions;
    this.jobs = jobs;
    this.feedEnd = feedEnd;
  }

  /** Follows the feed for {@code subscriptions}, restarting the subscriber if they changed. */
  synchronized void update(List<Subscription> subscriptions) {
    if (closed || subscriptions.equals(current) && subscriber != null
        && subscriber.failure() == null) {
      return;
    }
    stop();
    EventSubscriber.Builder next = EventSubscriber.builder(NAME, events, jobs, positions)
        .token(token).startPosition(Math.max(1, feedEnd.getAsLong()));
    subscriptions.forEach(next::subscription);
    subscriber = next.build().start();
    current = List.copyOf(subscriptions);
    LOG.info("Change feed subscriber {} follows {} subscriptions from position {}", NAME,
        subscriptions.size(), subscriber.position());
  }

  /** Why the subscriber stopped, or null while it runs (or before it started). */
  synchronized String failure() {
    return subscriber == null ? null : subscriber.failure();
  }

  private void stop() {
    if (subscriber != null) {
      subscriber.close();
      subscriber = null;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    stop();
  }
}
