package io.verglas.events;

import io.verglas.events.publish.Delivery;
import io.verglas.events.publish.OutboxEntry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * One {@code POST <feed>} per outbox entry, with {@code Authorization: Bearer <token>} when a
 * token is configured. The answer decides what the sender does: 2xx delivered; 400, 413 and 422
 * rejected for good (the feed will never take that event); everything else, 401 and 403
 * included, tried again later: a refused credential or a missing route is a configuration an
 * operator fixes, after which the events must still be there. The token never appears in
 * {@link #toString} or in a reason.
 */
final class HttpDelivery implements Delivery {
  private static final int MAX_BODY_IN_REASON = 200;
  private final URI feed;
  private final String token;
  private final Duration timeout;
  private final HttpClient client;

  HttpDelivery(URI feed, String token, Duration timeout) {
    this.feed = feed;
    this.token = token;
    this.timeout = timeout;
    this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public Result deliver(OutboxEntry entry) throws InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(feed)
        .timeout(timeout)
        .header("Content-Type", "application/cloudevents+json")
        .POST(HttpRequest.BodyPublishers.ofString(entry.json()));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return classify(response.statusCode(), response.body());
    } catch (HttpTimeoutException e) {
      return Result.retry("the change feed did not answer within " + timeout);
    } catch (IOException e) {
      return Result.retry(e.toString());
    }
  }

  Result classify(int status, String body) {
    if (status >= 200 && status < 300) {
      return Result.delivered();
    }
    if (status == 401 || status == 403) {
      return Result.retry(token != null
          ? "the change feed refused the credential (HTTP " + status + ")"
          : "the change feed wants a credential and none is configured (HTTP " + status + ")");
    }
    String answer = "HTTP " + status + " " + abbreviate(body);
    return status == 400 || status == 413 || status == 422
        ? Result.rejected(answer) : Result.retry(answer);
  }

  private static String abbreviate(String body) {
    String oneLine = body == null ? "" : body.strip().replaceAll("\\s+", " ");
    return oneLine.length() <= MAX_BODY_IN_REASON ? oneLine
        : oneLine.substring(0, MAX_BODY_IN_REASON) + "...";
  }

  @Override
  public String toString() {
    return feed.toString();
  }
}
