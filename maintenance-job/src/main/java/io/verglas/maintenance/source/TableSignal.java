package io.verglas.maintenance.source;

import java.io.Serializable;
import java.util.Objects;

/**
 * A reason to look at one table: a commit seen on the change feed, or the slow full sweep.
 *
 * @param table the table name in the {@link io.verglas.table.TableIdentifiers} form: levels
 *     joined by dots, a level holding a dot quoted ({@code demo.`orders.v2`})
 * @param sweep true for a sweep signal (catches events that were lost)
 * @param feedSequence the event's feed sequence, 0 for a sweep
 */
public record TableSignal(String table, boolean sweep, long feedSequence) implements Serializable {
  public TableSignal {
    Objects.requireNonNull(table, "table");
  }
}
