package io.verglas.sdk;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import org.apache.iceberg.catalog.TableIdentifier;

/** Where a client's {@link TableClient}s read (query endpoint) and follow (change feed) from. */
final class TableEndpoints {
  static final Duration COMMIT_TIMEOUT_DEFAULT = Duration.ofMinutes(2);
  static final Duration COMMIT_POLL_INTERVAL = Duration.ofMillis(200);

  private final QueryClient queries;
  private final URI events;
  private final String eventsToken;
  private final Duration commitTimeout;
  private final HttpClient feedHttp;

  private TableEndpoints(Builder builder) {
    this.queries = builder.queryEndpoint == null ? null
        : QueryClient.of(builder.queryEndpoint, builder.queryToken);
    this.events = builder.events;
    this.eventsToken = builder.eventsToken;
    this.commitTimeout = builder.commitTimeout == null ? COMMIT_TIMEOUT_DEFAULT : builder.commitTimeout;
    this.feedHttp = events == null ? null
        : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  }

  TableClient client(VerglasClient client, TableIdentifier table) {
    return new TableClient(client, table, queries, events, eventsToken, commitTimeout,
        COMMIT_POLL_INTERVAL, feedHttp);
  }

  /** Part of {@link VerglasClient.Builder}: each setting once, checked when set. */
  static final class Builder {
    private URI queryEndpoint;
    private String queryToken;
    private URI events;
    private String eventsToken;
    private Duration commitTimeout;

    void queryEndpoint(URI endpoint, String token) {
      if (queryEndpoint != null) {
        throw new IllegalStateException("queryEndpoint was already set to " + queryEndpoint);
      }
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("Invalid query token: blank");
      }
      this.queryEndpoint = Objects.requireNonNull(endpoint, "endpoint");
      this.queryToken = token;
    }

    void changeFeed(URI uri, String token) {
      if (events != null) {
        throw new IllegalStateException("changeFeed was already set to " + events);
      }
      Objects.requireNonNull(uri, "events");
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new IllegalArgumentException("Invalid change feed uri: '" + uri
            + "' (expected http://host:port/events)");
      }
      this.events = uri;
      this.eventsToken = token;
    }

    void commitTimeout(Duration timeout) {
      if (commitTimeout != null) {
        throw new IllegalStateException("commitTimeout was already set to " + commitTimeout);
      }
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("Invalid commit timeout: " + timeout);
      }
      this.commitTimeout = timeout;
    }

    TableEndpoints build() {
      return new TableEndpoints(this);
    }
  }
}
