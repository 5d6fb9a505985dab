package io.verglas.queue;

import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The real parts queue tests run on: s3proxy (in-memory blobs) on 127.0.0.1 with one bucket, an
 * S3 client for it, and a hand-moved clock for lease deadlines.
 */
final class QueueFixture implements AutoCloseable {
  static final String BUCKET = "queues";
  final S3Proxy proxy;
  final S3Client s3;
  final HandClock clock = new HandClock(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());

  QueueFixture() throws Exception {
    proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "queue-test", "queue-test-secret")
        .ignoreUnknownHeaders(true).build();
    proxy.start();
    for (int i = 0; i < 1000 && !"STARTED".equals(proxy.getState()); i++) {
      Thread.sleep(10);
    }
    s3 = new ObjectStoreEndpoint(URI.create("http://127.0.0.1:" + proxy.getPort()), "us-east-1",
        "queue-test", "queue-test-secret", BUCKET).newClient();
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  Queues queues(QueueSettings settings) {
    return new Queues(s3, BUCKET, settings.withGroups(settings.groups().withClock(clock)));
  }

  @Override
  public void close() throws Exception {
    s3.close();
    proxy.stop();
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
