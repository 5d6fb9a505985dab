package io.verglas.workers.harness;

import io.verglas.sdk.VerglasClient;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where a run reaches the stack: the Flight ingest server, the query endpoint (commit
 * confirmations and reads) and, optionally, the change feed; with their tokens.
 *
 * @param events null when runs get no change feed
 */
public record WorkerEndpoints(URI flight, String flightToken, URI query, String queryToken,
    URI events, String eventsToken, Duration commitTimeout) {
  public WorkerEndpoints {
    Objects.requireNonNull(flight, "flight");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(commitTimeout, "commitTimeout");
  }

  @Override
  public String toString() {
    // never the tokens
    return "WorkerEndpoints[flight=" + flight + ", query=" + query + ", events=" + events + "]";
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
