package io.verglas.events;

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

  /** The CloudEvents subject: the table name with levels joined by dots. */
  default String subject() {
    return String.join(".", table());
  }
}
