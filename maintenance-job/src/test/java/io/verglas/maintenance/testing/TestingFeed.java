package io.verglas.maintenance.testing;

import com.sun.net.httpserver.HttpServer;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.ChangeFeedHttpHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A real change feed behind an in-process HTTP server on 127.0.0.1. */
public final class TestingFeed implements AutoCloseable {
  private final ChangeFeed feed;
  private final HttpServer server;

  public TestingFeed(Path dir) throws IOException {
    this.feed = new ChangeFeed(dir.resolve("feed.jsonl"), 1_000_000);
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/events", new ChangeFeedHttpHandler(feed, 4, Duration.ofSeconds(1)));
    server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
    server.start();
  }

  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
  }

  public ChangeFeed feed() {
    return feed;
  }

  /** An event as the materializer publishes one for an append with a deletion vector. */
  public CatalogEvent commit(String namespace, String table, long snapshotId) {
    return feed.append(new CatalogEvent(UUID.randomUUID().toString(), "verglas/materializer",
        Instant.now(), List.of(namespace, table), UUID.randomUUID().toString(), snapshotId,
        null, "overwrite", 1, System.currentTimeMillis(),
        Map.of("added-data-files", "1", "added-dvs", "1"), null, 0));
  }

  public List<FeedEvent> all() {
    return feed.read(1, event -> true, Integer.MAX_VALUE);
  }

  @Override
  public void close() {
    server.stop(0);
    feed.close();
  }
}
