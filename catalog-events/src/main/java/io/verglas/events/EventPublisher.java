package io.verglas.events;

/** Where producers (the materializer, the maintenance job, the catalog poller) send events. */
public interface EventPublisher extends AutoCloseable {
  /** Publishes one event; the feed ignores an id it already has. */
  void publish(CatalogEvent event);

  @Override
  default void close() {}

  /** A publisher for deployments without a change feed: events are dropped. */
  static EventPublisher discarding() {
    return event -> {};
  }
}
