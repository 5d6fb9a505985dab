package io.verglas.maintenance.job;

import java.io.Serializable;
import java.util.Objects;

/**
 * One table to maintain now. {@code sweep}: the full sweep asked (then orphan files are looked
 * for too: listing a table's files is the expensive part, so only the slow sweep does it).
 */
public record WorkItem(String table, boolean sweep) implements Serializable {
  public WorkItem {
    Objects.requireNonNull(table, "table");
  }
}
