package io.verglas.workers.api;

import io.verglas.table.TableIdentifiers;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The tables a deployment may read and write (a write grant includes reading), and the queues
 * it may publish to and consume from ({@link QueueGrants}).
 *
 * <p>Enforced where a worker reaches tables, its {@link WorkerContext}, and, for tables, by the
 * servers too when the harness hands the run a scoped token of these grants (see
 * {@code WorkerHarness}): then a worker that builds a client of its own is refused by Flight
 * ingest, the query endpoint and the change feed. Queue grants are enforced in the context
 * only (the run holds the queues' bucket credentials).
 */
public record DataGrants(Set<TableIdentifier> reads, Set<TableIdentifier> writes,
    QueueGrants queues) {
  public DataGrants {
    reads = Set.copyOf(reads);
    writes = Set.copyOf(writes);
    java.util.Objects.requireNonNull(queues, "queues");
  }

  /** Table grants and no queue. */
  public DataGrants(Set<TableIdentifier> reads, Set<TableIdentifier> writes) {
    this(reads, writes, QueueGrants.none());
  }

  /** These table grants with {@code value} as the queue grants. */
  public DataGrants withQueues(QueueGrants value) {
    return new DataGrants(reads, writes, value);
  }

  /** Grants from table names ({@code ns.t}). */
  public static DataGrants of(Collection<String> reads, Collection<String> writes) {
    return new DataGrants(identifiers(reads), identifiers(writes));
  }

  public boolean mayRead(TableIdentifier table) {
    return reads.contains(table) || writes.contains(table);
  }

  /** @throws DataGrantException if {@code table} is neither read nor write granted */
  public void checkRead(TableIdentifier table) {
    if (!mayRead(table)) {
      throw new DataGrantException("Cannot read table " + name(table)
          + ": the deployment is granted only " + names(all()));
    }
  }

  /** @throws DataGrantException if {@code table} is not write granted */
  public void checkWrite(TableIdentifier table) {
    if (!writes.contains(table)) {
      throw new DataGrantException("Cannot write table " + name(table)
          + ": the deployment is granted only " + names(writes) + " for writes");
    }
  }

  /** The tables' names, sorted. */
  private static List<String> names(Collection<TableIdentifier> tables) {
    return List.copyOf(new TreeSet<>(tables.stream().map(DataGrants::name).toList()));
  }

  private Set<TableIdentifier> all() {
    Set<TableIdentifier> all = new java.util.HashSet<>(reads);
    all.addAll(writes);
    return all;
  }

  static String name(TableIdentifier table) {
    return TableIdentifiers.toString(table);
  }

  private static Set<TableIdentifier> identifiers(Collection<String> names) {
    return Set.copyOf(names.stream().map(TableIdentifiers::identifier).toList());
  }
}
