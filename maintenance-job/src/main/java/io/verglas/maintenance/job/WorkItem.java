package io.verglas.maintenance.job;

import io.verglas.table.TableIdentifiers;
import java.io.Serializable;
import java.util.Objects;

/**
 * One table to maintain now. {@code table}: its name in the {@link TableIdentifiers} form (the
 * key of the job's keyed state, so a string; a level holding a dot is quoted, and names without
 * one keep the form earlier builds keyed state by). {@code sweep}: the full sweep asked (then
 * orphan files are looked for too: listing a table's files is the expensive part, so only the
 * slow sweep does it).
 */
public record WorkItem(String table, boolean sweep) implements Serializable {
  public WorkItem {
    Objects.requireNonNull(table, "table");
  }
}
