package io.verglas.queue;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.store.ObjectStoreEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The real parts queue tests run on: a cache node on 127.0.0.1 over a local directory origin in
 * a temporary directory (atomic conditional writes, as in {@code ./verglas local}), one bucket,
 * an S3 client for it, and a hand-moved clock for lease deadlines.
 */
final class QueueFixture implements AutoCloseable {
  static final String BUCKET = "queues";
  final Path root;
  final CacheNode node;
  final S3Client s3;
  final ObjectStoreEndpoint endpoint;
  final HandClock clock = new HandClock(System.currentTimeMillis());

  QueueFixture() throws Exception {
    root = Files.createTempDirectory("verglas-queues");
    node = CacheNode.builder().credentials("queue-test", "queue-test-secret")
        .origin(new LocalDirectoryOrigin(root)).dramCapacityBytes(64L << 20).build().start();
    endpoint = new ObjectStoreEndpoint(node.endpoint(), node.region(), "queue-test",
        "queue-test-secret", BUCKET);
    s3 = endpoint.newClient();
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  Queues queues(QueueSettings settings) {
    return new Queues(s3, BUCKET, settings.withGroups(settings.groups().withClock(clock)));
  }

  @Override
  public void close() throws Exception {
    s3.close();
    node.close();
    try (var files = Files.walk(root)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** A clock only the test moves. */
  static final class HandClock extends Clock {
    private final AtomicLong millis;

    HandClock(long startMillis) {
      this.millis = new AtomicLong(startMillis);
    }

    void advance(Duration by) {
      millis.addAndGet(by.toMillis());
    }

    @Override
    public long millis() {
      return millis.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
