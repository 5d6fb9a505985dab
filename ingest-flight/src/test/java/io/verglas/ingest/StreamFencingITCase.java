package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.wal.WalSegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes started with the same stream id: the conditional PUT lets exactly one write
 * each segment, and the one that loses stops acknowledging anything.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamFencingITCase {
  private static final String STREAM = "shared";
  private static final TableIdentifier TABLE = TestTables.id("fence", "events");

  @TempDir
  Path dir;

  @Test
  void theSecondWriterOfAStreamIsFencedAndStopsAcknowledging() throws Exception {
    try (TestEnvironment env = new TestEnvironment(dir);
        IngestServer first = env.server(STREAM).build().start();
        VerglasClient a = client(first)) {
      a.createTable(TestTables.events("fence", "events"));
      assertThat(push(a, 1, 3).sequence()).isEqualTo(1);

      try (IngestServer second = env.server(STREAM).build().start();
          VerglasClient b = client(second)) {
        assertThat(push(a, 10, 2).sequence()).isEqualTo(2);

        assertThatThrownBy(() -> push(b, 20, 5)).isInstanceOfSatisfying(VerglasException.class, e -> {
          assertThat(e.code()).isEqualTo(FlightStatusCode.UNAVAILABLE);
          assertThat(e.description()).isEqualTo("Cannot write WAL segment "
              + TestEnvironment.LAYOUT.segmentKey(STREAM, 2) + ": another writer already wrote it, "
              + "so stream 'shared' is fenced and this ingest process accepts no more writes "
              + "(restart it with another stream id)");
        });
        assertThat(b.health().status()).isEqualTo("fenced");
        assertThatThrownBy(() -> push(b, 30, 1)).isInstanceOfSatisfying(VerglasException.class,
            e -> assertThat(e.description()).contains("is fenced"));

        assertThat(push(a, 40, 4).sequence()).isEqualTo(3);
        assertThat(a.health().status()).isEqualTo("ok");
      }

      List<WalSegment> segments = env.segments(STREAM);
      assertThat(segments).extracting(s -> s.header().sequence()).containsExactly(1L, 2L, 3L);
      assertThat(segments).extracting(s -> s.header().recordCount()).containsExactly(3L, 2L, 4L);
    }
  }

  private static VerglasClient client(IngestServer server) {
    return VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN).build();
  }

  private static PutAck push(VerglasClient client, long firstId, int count) {
    try (RowBatchBuilder rows = client.rowBatchBuilder(TABLE)) {
      for (int i = 0; i < count; i++) {
        rows.add(Map.of("id", firstId + i, "name", "row-" + (firstId + i)));
      }
      try (VectorSchemaRoot batch = rows.build()) {
        return client.push(TABLE, List.of(batch)).get(0);
      }
    }
  }
}
