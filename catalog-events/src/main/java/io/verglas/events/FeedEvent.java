package io.verglas.events;

import io.verglas.table.TableIdentifiers;
import java.time.Instant;
import java.util.List;

/**
 * An event of the change feed: a CloudEvents 1.0 event about one table. Two types exist: a
 * snapshot commit ({@link CatalogEvent}) and a maintenance operation that creates no snapshot
 * ({@link TableMaintainedEvent}). The feed numbers both in one sequence and deduplicates both by
 * id, so a consumer resumes from one position whatever it subscribes to.
 */
public sealed interface FeedEvent permits CatalogEvent, TableMaintainedEvent {
  /** Unique and deterministic per change, so a retried publish carries the same id. */
  String id();

  String source();

  /** The CloudEvents {@code type} attribute. */
  String type();

  Instant time();

  /** Namespace levels, then the table name. */
  List<String> table();

  String tableUuid();

  /** 0 until the change feed accepts the event and numbers it. */
  long feedSequence();

  FeedEvent withFeedSequence(long sequence);

  /**
   * The CloudEvents subject: the table's {@link TableIdentifiers} form, its levels joined by dots
   * with a level that holds a dot in backquotes ({@code demo.`orders.v2`}). Consumers that need
   * the levels read {@link #table()}, which the event's data carries as a list.
   */
  default String subject() {
    return TableIdentifiers.toString(table());
  }
}
