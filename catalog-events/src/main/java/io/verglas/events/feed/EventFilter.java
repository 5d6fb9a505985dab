package io.verglas.events.feed;

import io.verglas.access.TableScope;
import io.verglas.events.FeedEvent;
import io.verglas.table.TableIdentifiers;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which events a subscriber wants: all, one table ({@code table=ns.t}), or the tables of a
 * namespace and of the namespaces in it ({@code namespace=ns}); by the event's table levels, so
 * it applies to every event type. Both are read in the {@link TableIdentifiers} form, so a table
 * whose name holds a dot is {@code table=demo.`orders.v2`}; a malformed one is refused
 * (IllegalArgumentException) when the filter is made. A filter {@link #within} a token's scope
 * also drops the events of every table the scope may not read.
 */
public final class EventFilter implements Predicate<FeedEvent> {
  private final List<String> table;
  private final List<String> namespace;
  private final TableScope scope;

  /** Either may be null (no condition). */
  public EventFilter(String table, String namespace) {
    this(table == null ? null : TableIdentifiers.parse(table),
        namespace == null ? null : TableIdentifiers.parse(namespace), null);
  }

  private EventFilter(List<String> table, List<String> namespace, TableScope scope) {
    this.table = table;
    this.namespace = namespace;
    this.scope = scope;
  }

  /** This filter, passing only the events of tables {@code value} may read. */
  public EventFilter within(TableScope value) {
    return new EventFilter(table, namespace, value);
  }

  public static EventFilter all() {
    return new EventFilter(null, null);
  }

  @Override
  public boolean test(FeedEvent event) {
    List<String> levels = event.table();
    if (table != null && !table.equals(levels)) {
      return false;
    }
    if (scope != null
        && (levels.size() < 2 || !scope.mayRead(TableIdentifiers.identifier(levels)))) {
      return false;
    }
    return namespace == null || (levels.size() > namespace.size()
        && levels.subList(0, namespace.size()).equals(namespace));
  }
}
