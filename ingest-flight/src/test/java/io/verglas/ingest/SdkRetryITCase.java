package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.net.LoopbackPorts;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.wal.WalBatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK's writer outlives a server restart: its stream fails with UNAVAILABLE when the
 * server shuts down, it re-opens the stream to the restarted server and resends every batch not
 * yet acknowledged, with its key, and every batch ends up in the WAL exactly once.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SdkRetryITCase {
  private static final String STREAM = "sdk-retry";
  private static final TableIdentifier TABLE = TestTables.id("retry", "events");

  @TempDir
  Path dir;

  @Test
  void aWriterResendsItsUnacknowledgedBatchesToTheRestartedServer() throws Exception {
    int port = LoopbackPorts.free("the ingest server restarted on the same port");
    try (TestEnvironment env = new TestEnvironment(dir)) {
      IngestServer first = env.server(STREAM).port(port).build().start();
      List<CompletableFuture<PutAck>> acks = new ArrayList<>();
      try (VerglasClient client = VerglasClient.builder().uri(first.location())
              .token(TestEnvironment.TOKEN).writeRetries(20).retryBackoff(Duration.ofMillis(50))
              .build();
          RowBatchBuilder rows = rowsFor(client)) {
        TableWriter writer = client.openWriter(TABLE);
        for (int b = 0; b < 10; b++) {
          acks.add(write(writer, rows, b));
        }
        writer.flush();
        for (int b = 10; b < 20; b++) {
          acks.add(write(writer, rows, b));
        }
        first.close();
        try (IngestServer second = env.server(STREAM).port(port).build().start()) {
          for (int b = 20; b < 30; b++) {
            acks.add(write(writer, rows, b));
          }
          writer.flush();
          writer.close();
          assertThat(second.streamId()).isEqualTo(STREAM);
        }
      }
      assertThat(acks).allSatisfy(ack -> assertThat(ack).isCompleted());
      Map<String, Integer> copies = new HashMap<>();
      for (var segment : env.laneSegments(STREAM)) {
        for (WalBatch batch : segment.batches()) {
          copies.merge(batch.idempotencyKey(), 1, Integer::sum);
        }
      }
      assertThat(copies).hasSize(30);
      assertThat(copies.values()).containsOnly(1);
    }
  }

  private static RowBatchBuilder rowsFor(VerglasClient client) {
    client.createTable(TestTables.events("retry", "events"));
    return client.rowBatchBuilder(TABLE);
  }

  private static CompletableFuture<PutAck> write(TableWriter writer, RowBatchBuilder rows, int b) {
    for (int r = 0; r < 20; r++) {
      rows.add(Map.of("id", b * 100L + r, "name", "row-" + r));
    }
    try (VectorSchemaRoot batch = rows.build()) {
      return writer.write(batch, "batch-" + b);
    }
  }
}
