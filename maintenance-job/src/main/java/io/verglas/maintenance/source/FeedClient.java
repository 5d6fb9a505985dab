package io.verglas.maintenance.source;

import io.verglas.events.FeedEntry;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads pages of the change feed over HTTP ({@code GET <feed>?from=N}, JSON lines). A page is
 * at most {@code maxEvents} lines of any type (commits and maintenance events), so memory is
 * bounded whatever the backlog. Events of a type this version does not know (a newer producer's)
 * are skipped, logged once per type: the page's {@link Page#nextSequence} still moves past them,
 * so they never stall the reader. With a token, every request carries
 * {@code Authorization: Bearer <token>}; a refused credential fails the read naming the feed and
 * the status, never the token.
 */
final class FeedClient {
  private static final Logger LOG = LoggerFactory.getLogger(FeedClient.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  /** Unknown types logged so far; bounded so that a feed of ever-new types cannot grow it. */
  private static final int MAX_LOGGED_TYPES = 64;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final URI feed;
  private final String token;
  private final int maxEvents;
  private final Set<String> loggedTypes = new HashSet<>();
  private long skipped;

  FeedClient(URI feed, int maxEvents) {
    this(feed, null, maxEvents);
  }

  /** A client that sends {@code token} as a bearer credential; null sends none. */
  FeedClient(URI feed, String token, int maxEvents) {
    this.feed = feed;
    this.token = token;
    this.maxEvents = maxEvents;
  }

  /** Events from sequence {@code from} on, oldest first; empty when there are none yet. */
  Page read(long from) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(feed + "?from=" + from))
        .timeout(TIMEOUT).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<Stream<String>> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
    try (Stream<String> lines = response.body()) {
      if (response.statusCode() == 401 || response.statusCode() == 403) {
        throw new IOException("Cannot read the change feed " + feed + ": "
            + (token != null ? "the change feed refused the credential"
                : "the change feed wants a credential and none is configured (--feed.token)")
            + " (HTTP " + response.statusCode() + ")");
      }
      if (response.statusCode() != 200) {
        throw new IOException("Cannot read the change feed " + feed + ": HTTP "
            + response.statusCode());
      }
      List<FeedEvent> events = new ArrayList<>();
      long next = from;
      Iterator<String> page = lines.filter(line -> !line.isBlank()).limit(maxEvents).iterator();
      while (page.hasNext()) {
        FeedEntry entry = FeedEventParser.entryFromJson(page.next());
        entry.event().ifPresentOrElse(events::add, () -> skip(entry));
        next = Math.max(next, entry.feedSequence() + 1);
      }
      return new Page(events, next);
    }
  }

  /** How many events of unknown types were skipped so far. */
  long skipped() {
    return skipped;
  }

  private void skip(FeedEntry entry) {
    skipped++;
    if (loggedTypes.size() < MAX_LOGGED_TYPES && loggedTypes.add(entry.type())) {
      LOG.info("Skipping change feed events of type {} (first at sequence {}): this version "
          + "does not know it", entry.type(), entry.feedSequence());
    }
  }

  /**
   * One page: its events of known types, and the sequence after its last line of any type.
   */
  record Page(List<FeedEvent> events, long nextSequence) {}
}
