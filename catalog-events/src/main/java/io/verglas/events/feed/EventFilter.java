package io.verglas.events.feed;

import io.verglas.events.CatalogEvent;
import java.util.function.Predicate;

/** Which events a subscriber wants: all, one table ({@code ns.table}), or one namespace prefix. */
public record EventFilter(String table, String namespace) implements Predicate<CatalogEvent> {

  public static EventFilter all() {
    return new EventFilter(null, null);
  }

  @Override
  public boolean test(CatalogEvent event) {
    String subject = event.subject();
    if (table != null && !table.equals(subject)) {
      return false;
    }
    return namespace == null || subject.startsWith(namespace + ".");
  }
}
