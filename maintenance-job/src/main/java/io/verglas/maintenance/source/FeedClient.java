package io.verglas.maintenance.source;

import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads pages of the change feed over HTTP ({@code GET <feed>?from=N}, JSON lines). A page is
 * at most {@code maxEvents} events of any type (commits and maintenance events), so memory is bounded whatever the backlog.
 */
final class FeedClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final URI feed;
  private final int maxEvents;

  FeedClient(URI feed, int maxEvents) {
    this.feed = feed;
    this.maxEvents = maxEvents;
  }

  /** Events from sequence {@code from} on, oldest first; empty when there are none yet. */
  List<FeedEvent> read(long from) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(feed + "?from=" + from))
        .timeout(TIMEOUT).GET().build();
    HttpResponse<Stream<String>> response =
        http.send(request, HttpResponse.BodyHandlers.ofLines());
    try (Stream<String> lines = response.body()) {
      if (response.statusCode() != 200) {
        throw new IOException("Cannot read the change feed " + feed + ": HTTP "
            + response.statusCode());
      }
      return lines.filter(line -> !line.isBlank()).limit(maxEvents)
          .map(FeedEventParser::fromJson).toList();
    }
  }
}
