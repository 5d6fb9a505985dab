package io.verglas.vector;

import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Builds indexes from catalog events: for a commit of a table that declares a vector column, the
 * index of that commit's snapshot, when the snapshot is still the table's current one.
 */
/*
 * Design. Each new snapshot gets its own index, built incrementally from its nearest indexed
 * ancestor's when the publisher allows it (GraphBuild says when), from scratch otherwise. Commits that arrive faster than builds coalesce: an event whose snapshot is no longer current
 * is skipped, since the event of the newer snapshot follows it. Publishing is idempotent, so an
 * event delivered twice builds once. Runs in the caller's thread; the caller bounds the work by
 * how many events it hands over at once.
 */
public final class CommitIndexer {
  /** What an event led to. */
  public enum Outcome { INDEXED, ALREADY_INDEXED, NOT_A_COMMIT, NO_VECTOR_COLUMN, SUPERSEDED,
    NO_LIVE_VECTORS }

  private final Function<TableIdentifier, Table> tables;
  private final IndexPublisher publisher;

  public CommitIndexer(Function<TableIdentifier, Table> tables, IndexPublisher publisher) {
    this.tables = Objects.requireNonNull(tables, "tables");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
  }

  public Outcome onEvent(FeedEvent event) {
    if (!(event instanceof CatalogEvent commit)) {
      return Outcome.NOT_A_COMMIT;
    }
    Table table = tables.apply(identifier(commit.table()));
    if (!VectorColumn.isDeclared(table)) {
      return Outcome.NO_VECTOR_COLUMN;
    }
    Snapshot current = table.currentSnapshot();
    if (current == null || current.snapshotId() != commit.snapshotId()) {
      return Outcome.SUPERSEDED;
    }
    if (SnapshotIndexes.find(table, commit.snapshotId()).isPresent()) {
      return Outcome.ALREADY_INDEXED;
    }
    Optional<PublishedIndex> index = publisher.publish(table, commit.snapshotId());
    return index.isPresent() ? Outcome.INDEXED : Outcome.NO_LIVE_VECTORS;
  }

  private static TableIdentifier identifier(List<String> levels) {
    if (levels.isEmpty()) {
      throw new IllegalArgumentException("Cannot index: the event names no table");
    }
    return TableIdentifier.of(Namespace.of(levels.subList(0, levels.size() - 1)
        .toArray(new String[0])), levels.get(levels.size() - 1));
  }
}
