package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A missing key is an answer (404), not an error: probing for one (as ingest does for a
 * stream's high-water mark) must not make a library log a warning with a stack trace. Caffeine
 * logs through {@code System.Logger}, i.e. java.util.logging here; the test listens there.
 */
class MissingKeyLoggingTest {
  @TempDir Path dir;
  TestingCacheNode t;
  final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
  final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
        warnings.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void start() {
    Logger.getLogger("").addHandler(handler);
    t = new TestingCacheNode(dir, o -> o, b -> b.metadataTtl(Duration.ZERO));
  }

  @AfterEach
  void stop() {
    Logger.getLogger("").removeHandler(handler);
    t.close();
  }

  @Test
  void headsAndGetsOfMissingKeysLogNothing() {
    String key = "_wal/stream-1/high-water";
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(BUCKET).key(key)))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
      assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)))
          .isInstanceOf(NoSuchKeyException.class);
    }
    // Concurrent probes share one lookup; a key deleted behind a cached entry fails its revalidation.
    CompletableFuture<?>[] probes = IntStream.range(0, 16).mapToObj(i -> CompletableFuture.runAsync(() -> {
      try {
        t.s3.headObject(b -> b.bucket(BUCKET).key("concurrent/missing"));
      } catch (S3Exception expected) {
        // 404
      }
    })).toArray(CompletableFuture[]::new);
    CompletableFuture.allOf(probes).join();
    t.s3.putObject(b -> b.bucket(BUCKET).key("gone"), RequestBody.fromString("x"));
    t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("gone"));
    t.localOrigin.delete(BUCKET, "gone", io.verglas.cache.origin.WriteCondition.NONE).join();
    assertThatThrownBy(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("gone")))
        .isInstanceOf(NoSuchKeyException.class);

    assertThat(warnings).extracting(r -> r.getLoggerName() + ": " + r.getMessage()).isEmpty();
  }
}
