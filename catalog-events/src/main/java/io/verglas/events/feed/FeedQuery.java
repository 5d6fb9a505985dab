package io.verglas.events.feed;

import io.verglas.access.TableScope;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What {@code GET /events} asks for: {@code from=N} (default 1), {@code table=ns.t} or
 * {@code namespace=ns}, {@code follow=true|false} (default false). Parsed from the raw query
 * string; a bad value is an {@link IllegalArgumentException} naming it (an HTTP 400).
 */
public record FeedQuery(long from, EventFilter filter, boolean follow) {

  public static FeedQuery parse(String rawQuery) {
    Map<String, String> query = parameters(rawQuery);
    return new FeedQuery(sequence(query.getOrDefault("from", "1")),
        new EventFilter(query.get("table"), query.get("namespace")),
        flag(query.getOrDefault("follow", "false")));
  }

  /** This query, answered with only the events of the tables {@code scope} may read. */
  public FeedQuery within(TableScope scope) {
    return new FeedQuery(from, filter.within(scope), follow);
  }

  private static long sequence(String value) {
    long sequence;
    try {
      sequence = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Cannot read events: invalid from: " + value
          + " (a sequence number)");
    }
    if (sequence < 1) {
      throw new IllegalArgumentException("Cannot read events: invalid from: " + value
          + " (sequences start at 1)");
    }
    return sequence;
  }

  private static boolean flag(String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("Cannot read events: invalid follow: "
          + value + " (true or false)");
    };
  }

  private static Map<String, String> parameters(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.put(decode(key), decode(value));
    }
    return params;
  }

  private static String decode(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot read events: invalid query encoding: " + text);
    }
  }
}
