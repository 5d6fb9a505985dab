package io.verglas.events;

/** Where producers (the materializer, the maintenance job, the catalog poller) send events. */
public interface EventPublisher extends AutoCloseable {
  /** Publishes one commit event; the feed ignores an id it already has. */
  void publish(CatalogEvent event);

  /**
   * Publishes one maintenance event; the feed ignores an id it already has. Publishers that
   * only handle commits (test collectors) reject it clearly rather than drop it unseen.
   */
  default void publish(TableMaintainedEvent event) {
    throw new UnsupportedOperationException("Cannot publish event " + event.id() + ": "
        + getClass().getName() + " publishes only " + CatalogEvent.TYPE + " events");
  }

  @Override
  default void close() {}

  /** A publisher for deployments without a change feed: events are dropped. */
  static EventPublisher discarding() {
    return new EventPublisher() {
      @Override
      public void publish(CatalogEvent event) {}

      @Override
      public void publish(TableMaintainedEvent event) {}
    };
  }
}
