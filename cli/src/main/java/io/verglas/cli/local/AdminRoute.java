package io.verglas.cli.local;

import io.netty.handler.codec.http.HttpMethod;
import io.verglas.events.feed.FeedAccess;
import io.verglas.workers.webhook.WebhookEndpoint;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The admin endpoint's routes and the credential each needs ({@link FeedAccess}). */
enum AdminRoute {
  STATUS_PAGE("/", HttpMethod.GET, FeedAccess.Need.NONE),   // the page holds no data: it asks /status
  HEALTH("/health", HttpMethod.GET, FeedAccess.Need.NONE),
  READY("/ready", HttpMethod.GET, FeedAccess.Need.NONE),      // probes carry no token
  STATUS("/status", HttpMethod.GET, FeedAccess.Need.READ),
  METRICS("/metrics", HttpMethod.GET, FeedAccess.Need.READ),
  STATS("/stats", HttpMethod.GET, FeedAccess.Need.READ),
  MAINTENANCE("/maintenance", HttpMethod.GET, FeedAccess.Need.READ),
  HEAT("/heat", HttpMethod.GET, FeedAccess.Need.READ),
  READ_EVENTS("/events", HttpMethod.GET, FeedAccess.Need.EVENTS),
  PUBLISH_EVENT("/events", HttpMethod.POST, FeedAccess.Need.PUBLISH),
  // every path under the prefix; the webhook endpoint authenticates (admin token or signature)
  WEBHOOK(WebhookEndpoint.PREFIX, HttpMethod.POST, FeedAccess.Need.NONE);

  private final String path;
  private final HttpMethod method;
  private final FeedAccess.Need need;

  AdminRoute(String path, HttpMethod method, FeedAccess.Need need) {
    this.path = path;
    this.method = method;
    this.need = need;
  }

  static Optional<AdminRoute> find(String path, HttpMethod method) {
    return Arrays.stream(values()).filter(r -> r.matches(path) && r.method.equals(method))
        .findFirst();
  }

  static boolean knownPath(String path) {
    return Arrays.stream(values()).anyMatch(r -> r.matches(path));
  }

  /** The methods {@code path} answers, as an {@code Allow} header value. */
  static String allowed(String path) {
    return Arrays.stream(values()).filter(r -> r.matches(path))
        .map(r -> r.method.name()).collect(Collectors.joining(", "));
  }

  static String paths() {
    return Arrays.stream(values()).map(r -> r == WEBHOOK ? r.path + "<deployment>" : r.path).distinct()
        .collect(Collectors.joining(", "));
  }

  /** Whether {@code path} is this route's: its path, or under it for {@link #WEBHOOK}. */
  private boolean matches(String path) {
    return this == WEBHOOK ? WebhookEndpoint.serves(path) : this.path.equals(path);
  }

  String path() {
    return path;
  }

  FeedAccess.Need need() {
    return need;
  }
}
