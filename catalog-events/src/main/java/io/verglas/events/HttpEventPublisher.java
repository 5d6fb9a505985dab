package io.verglas.events;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes events to a change feed over HTTP ({@code POST <feed>/events}).
 *
 * <p>Publishing happens after a commit has succeeded, so a failure here must not undo or fail
 * the commit: the publisher retries with backoff, then logs and gives up. Consumers are safe
 * regardless, because the catalog poller detects commits that produced no event.
 */
public final class HttpEventPublisher implements EventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(HttpEventPublisher.class);
  private final URI feed;
  private final int attempts;
  private final HttpClient client;

  public HttpEventPublisher(URI feed, int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("Invalid attempts: " + attempts);
    }
    this.feed = feed;
    this.attempts = attempts;
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  @Override
  public void publish(CatalogEvent event) {
    send(event);
  }

  @Override
  public void publish(TableMaintainedEvent event) {
    send(event);
  }

  private void send(FeedEvent event) {
    HttpRequest request = HttpRequest.newBuilder(feed)
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/cloudevents+json")
        .POST(HttpRequest.BodyPublishers.ofString(FeedEventParser.toJson(event)))
        .build();
    for (int attempt = 1; attempt <= attempts; attempt++) {
      try {
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        LOG.warn("Change feed {} refused event {}: {} {}", feed, event.id(),
            response.statusCode(), response.body());
      } catch (IOException e) {
        LOG.warn("Cannot publish event {} to {} (attempt {}/{}): {}", event.id(), feed, attempt,
            attempts, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      sleep(100L << Math.min(attempt, 6));
    }
    LOG.error("Gave up publishing event {} to {}; the catalog poller will report it", event.id(), feed);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
