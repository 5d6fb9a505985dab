package io.verglas.events.feed;

import io.verglas.events.FeedEvent;
import java.util.function.Predicate;

/** Which events a subscriber wants: all, one table ({@code ns.table}), or one namespace prefix;
 * by subject, so it applies to every event type. */
public record EventFilter(String table, String namespace) implements Predicate<FeedEvent> {

  public static EventFilter all() {
    return new EventFilter(null, null);
  }

  @Override
  public boolean test(FeedEvent event) {
    String subject = event.subject();
    if (table != null && !table.equals(subject)) {
      return false;
    }
    return namespace == null || subject.startsWith(namespace + ".");
  }
}
