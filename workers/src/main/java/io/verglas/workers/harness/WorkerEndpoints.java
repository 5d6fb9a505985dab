package io.verglas.workers.harness;

import io.verglas.sdk.QueueClient;
import io.verglas.sdk.VerglasClient;
import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where a run reaches the stack: the Flight ingest server, the query endpoint (commit
 * confirmations and reads), optionally the change feed, with their tokens; and, optionally, the
 * object store holding the queues.
 *
 * @param events null when runs get no change feed
 * @param queues null when runs get no queues
 */
public record WorkerEndpoints(URI flight, String flightToken, URI query, String queryToken,
    URI events, String eventsToken, Duration commitTimeout, ObjectStoreEndpoint queues) {
  public WorkerEndpoints {
    Objects.requireNonNull(flight, "flight");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(commitTimeout, "commitTimeout");
  }

  /** Endpoints without queues. */
  public WorkerEndpoints(URI flight, String flightToken, URI query, String queryToken,
      URI events, String eventsToken, Duration commitTimeout) {
    this(flight, flightToken, query, queryToken, events, eventsToken, commitTimeout, null);
  }

  /**
   * These endpoints with {@code token} for Flight, the query endpoint and the change feed: what a
   * run's process gets instead of the stack's tokens (a scoped token of its grants).
   */
  public WorkerEndpoints withToken(String token) {
    return new WorkerEndpoints(flight, token, query, token, events, events == null ? null : token,
        commitTimeout, queues);
  }

  /** These endpoints with {@code value} as the queues' object store. */
  public WorkerEndpoints withQueues(ObjectStoreEndpoint value) {
    return new WorkerEndpoints(flight, flightToken, query, queryToken, events, eventsToken,
        commitTimeout, value);
  }

  @Override
  public String toString() {
    // never the tokens, nor the object store's secret key
    return "WorkerEndpoints[flight=" + flight + ", query=" + query + ", events=" + events
        + ", queues=" + (queues == null ? null : queues.endpoint() + "/" + queues.bucket()) + "]";
  }

  /** A queue client of these endpoints; the caller closes it. */
  public QueueClient queueClient() {
    if (queues == null) {
      throw new IllegalStateException("Cannot reach queues: the stack gives runs no queue endpoint");
    }
    return QueueClient.connect(queues);
  }

  /** A client of these endpoints; the caller closes it. */
  public VerglasClient client() {
    VerglasClient.Builder builder = VerglasClient.builder().uri(flight)
        .queryEndpoint(query, queryToken).commitTimeout(commitTimeout);
    if (flightToken != null) {
      builder.token(flightToken);
    }
    if (events != null) {
      builder.changeFeed(events, eventsToken);
    }
    return builder.build();
  }
}
