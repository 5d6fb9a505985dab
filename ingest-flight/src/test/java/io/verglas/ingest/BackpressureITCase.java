package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the object store fails, PUTs are retried with backoff, writers wait while the ingest
 * buffer is full and then fail with UNAVAILABLE; the buffered bytes and Arrow memory stay
 * within their bounds however much the client tries to send.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BackpressureITCase {
  private static final long MAX_BUFFERED = 1 << 20;
  private static final TableIdentifier TABLE = TestTables.id("slow", "events");

  @TempDir
  Path dir;

  @Test
  void aFailingOriginMakesWritersWaitThenFailWithoutGrowingMemory() throws Exception {
    // Tables on the local file system: only the WAL's object store fails.
    org.apache.iceberg.catalog.Catalog local = io.verglas.catalog.Catalogs.load("local", Map.of(
        "type", "jdbc", "uri", "jdbc:sqlite:" + dir.resolve("local.db"), "jdbc.schema-version", "V1",
        "warehouse", dir.resolve("warehouse").toUri().toString()));
    try (TestEnvironment env = new TestEnvironment(dir);
        BufferAllocator serverAllocator = new RootAllocator();
        IngestServer server = IngestServer.builder().catalog(local).objectStore(env.endpoint())
            .streamId("slow").token(TestEnvironment.TOKEN).flushInterval(Duration.ofMillis(20))
            .allocator(serverAllocator)
            .maxBufferedBytes(MAX_BUFFERED).flushBytes(128 << 10).maxBatchBytes(512 << 10)
            .backpressureTimeout(Duration.ofMillis(500)).putMaxAttempts(3)
            .putInitialBackoff(Duration.ofMillis(50)).putMaxBackoff(Duration.ofMillis(200))
            .lanes(2).build().start();
        VerglasClient client = VerglasClient.builder().uri(server.location())
            .token(TestEnvironment.TOKEN).build()) {
      client.createTable(TestTables.events("slow", "events"));
      assertThat(push(client, 0, 10).join().rows()).isEqualTo(10);
      env.stopObjectStore();

      AtomicLong maxBuffered = new AtomicLong();
      Thread sampler = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          maxBuffered.accumulateAndGet(server.metrics().snapshot().bufferedBytes(), Math::max);
          Thread.onSpinWait();
        }
      });
      sampler.start();
      List<VerglasException> failures = new ArrayList<>();
      long start = System.nanoTime();
      try (RowBatchBuilder rows = client.rowBatchBuilder(TABLE)) {
        for (int attempt = 0; attempt < 4; attempt++) {
          try (TableWriter writer = client.openWriter(TABLE)) {
            List<CompletableFuture<PutAck>> acks = new ArrayList<>();
            for (int b = 0; b < 40; b++) {
              for (int r = 0; r < 2_000; r++) {
                rows.add(Map.of("id", (long) b * 10_000 + r, "name", "x".repeat(40)));
              }
              try (VectorSchemaRoot batch = rows.build()) {
                acks.add(writer.write(batch));
              }
            }
            writer.flush();
          } catch (VerglasException e) {
            failures.add(e);
          }
        }
      } finally {
        sampler.interrupt();
        sampler.join();
      }

      assertThat(failures).hasSize(4).allSatisfy(e -> {
        assertThat(e.code()).isEqualTo(FlightStatusCode.UNAVAILABLE);
        assertThat(e.description()).containsAnyOf("the ingest buffer stayed full",
            "Cannot write WAL segment");
      });
      assertThat(maxBuffered.get()).isPositive().isLessThanOrEqualTo(MAX_BUFFERED);
      assertThat(server.metrics().snapshot().putRetries()).isPositive();
      assertThat(server.metrics().snapshot().putFailures()).isPositive();
      // Arrow memory on the server: gRPC's window plus one batch per call, not the client's 40.
      assertThat(serverAllocator.getPeakMemoryAllocation()).isLessThan(64L << 20);
      assertThat(System.nanoTime() - start).as("writers were held back, not refused at once")
          .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(500));
    }
  }

  private static CompletableFuture<PutAck> push(VerglasClient client, long firstId, int count) {
    try (RowBatchBuilder rows = client.rowBatchBuilder(TABLE);
        TableWriter writer = client.openWriter(TABLE)) {
      for (int i = 0; i < count; i++) {
        rows.add(Map.of("id", firstId + i, "name", "row"));
      }
      try (VectorSchemaRoot batch = rows.build()) {
        CompletableFuture<PutAck> ack = writer.write(batch);
        writer.flush();
        return ack;
      }
    }
  }
}
