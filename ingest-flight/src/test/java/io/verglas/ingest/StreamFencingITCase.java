package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.wal.WalSegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes configured with the same stream: the one that claimed it last owns it, the
 * other stops acknowledging at its next write, and nothing either of them acknowledged is lost
 * or overwritten.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamFencingITCase {
  private static final String STREAM = "shared";
  private static final TableIdentifier TABLE = TestTables.id("fence", "events");

  @TempDir
  Path dir;

  @Test
  void theNewerProcessTakesTheStreamOverAndTheOlderStopsAcknowledging() throws Exception {
    try (TestEnvironment env = new TestEnvironment(dir);
        IngestServer first = env.server(STREAM).lanes(1).build().start();
        VerglasClient a = client(first)) {
      a.createTable(TestTables.events("fence", "events"));
      assertThat(push(a, 1, 3).sequence()).isEqualTo(1);

      try (IngestServer second = env.server(STREAM).lanes(1).build().start();
          VerglasClient b = client(second)) {
        assertThatThrownBy(() -> push(a, 10, 2)).isInstanceOfSatisfying(VerglasException.class, e -> {
          assertThat(e.code()).isEqualTo(FlightStatusCode.UNAVAILABLE);
          assertThat(e.description()).isEqualTo("Cannot acknowledge WAL segment "
              + TestEnvironment.LAYOUT.segmentKey(STREAM, 2) + ": another process claimed stream "
              + "'shared' (epoch 2), so this ingest process is fenced and accepts no more writes");
        });
        assertThat(a.health().status()).isEqualTo("fenced");
        assertThatThrownBy(() -> push(a, 30, 1)).isInstanceOfSatisfying(VerglasException.class,
            e -> assertThat(e.description()).contains("is fenced"));

        // The fenced write of segment 2 is durable but was never acknowledged; the owner
        // moves past it and never overwrites it.
        assertThat(push(b, 40, 4).sequence()).isEqualTo(3);
        assertThat(b.health().status()).isEqualTo("ok");
      }

      List<WalSegment> segments = env.segments(STREAM);
      assertThat(segments).extracting(s -> s.header().sequence()).containsExactly(1L, 2L, 3L);
      assertThat(segments).extracting(s -> s.header().recordCount()).containsExactly(3L, 2L, 4L);
    }
  }

  @Test
  void twoServersConfiguredWithTheSameStreamExactlyOneAcknowledges() throws Exception {
    try (TestEnvironment env = new TestEnvironment(dir)) {
      try (IngestServer admin = env.server("admin").build().start(); VerglasClient c = client(admin)) {
        c.createTable(TestTables.events("fence", "events"));
      }
      for (int round = 0; round < 2; round++) {
        String stream = STREAM + round;
        List<IngestServer> servers = startBoth(env, stream, round == 1);
        try {
          Map<Integer, List<PutAck>> acked = new ConcurrentHashMap<>();
          Map<Integer, Set<FlightStatusCode>> refused = new ConcurrentHashMap<>();
          ExecutorService pool = Executors.newFixedThreadPool(4);
          List<Future<?>> pushes = new ArrayList<>();
          for (int c = 0; c < 4; c++) {
            int server = c % 2;
            int clientId = c;
            pushes.add(pool.submit(() -> pushMany(servers.get(server), clientId, 8,
                acked.computeIfAbsent(server, s -> new java.util.concurrent.CopyOnWriteArrayList<>()),
                refused.computeIfAbsent(server, s -> ConcurrentHashMap.newKeySet()))));
          }
          for (Future<?> push : pushes) {
            push.get(60, TimeUnit.SECONDS);
          }
          pool.shutdown();

          int acknowledging = 0;
          for (int s = 0; s < 2; s++) {
            if (!acked.getOrDefault(s, List.of()).isEmpty()) {
              acknowledging++;
            } else {
              assertThat(refused.get(s)).containsOnly(FlightStatusCode.UNAVAILABLE);
            }
          }
          assertThat(acknowledging).as("servers that acknowledged anything (round %s)", round)
              .isEqualTo(1);
          // Every acknowledged batch is in the WAL, at the position its ack names.
          Map<String, WalSegment> byPosition = new ConcurrentHashMap<>();
          for (WalSegment segment : env.laneSegments(stream)) {
            byPosition.put(segment.header().streamId() + "/" + segment.header().sequence(), segment);
          }
          for (List<PutAck> acks : acked.values()) {
            for (PutAck ack : acks) {
              WalSegment segment = byPosition.get(ack.stream() + "/" + ack.sequence());
              assertThat(segment).as("segment of %s", ack).isNotNull();
              assertThat(segment.batches().get(ack.batch()).hlc()).isEqualTo(ack.hlc());
            }
          }
          long fenced = servers.stream().filter(s -> s.metrics().snapshot().batchesAcknowledged() == 0)
              .count();
          assertThat(fenced).isEqualTo(1);
        } finally {
          servers.forEach(IngestServer::close);
        }
      }
    }
  }

  /** Starts two servers of one stream, one after the other or both at the same moment. */
  private static List<IngestServer> startBoth(TestEnvironment env, String stream, boolean atOnce)
      throws Exception {
    if (!atOnce) {
      List<IngestServer> servers = new ArrayList<>();
      servers.add(env.server(stream).build().start());
      servers.add(env.server(stream).build().start());
      return servers;
    }
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<IngestServer>> starting = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      starting.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
          return env.server(stream).build().start();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    go.countDown();
    List<IngestServer> servers = new ArrayList<>();
    for (CompletableFuture<IngestServer> server : starting) {
      servers.add(server.get(30, TimeUnit.SECONDS));
    }
    Set<Long> epochs = new HashSet<>();
    for (IngestServer server : servers) {
      try (VerglasClient c = client(server)) {
        epochs.add(Long.parseLong(c.health().json().replaceAll(".*\"epoch\":(\\d+).*", "$1")));
      }
    }
    assertThat(epochs).as("claims made at once get distinct epochs").hasSize(2);
    return servers;
  }

  /** Pushes batches one stream each, reopening after a refusal; records acks and refusals. */
  private static Void pushMany(IngestServer server, int clientId, int batches, List<PutAck> acked,
      Set<FlightStatusCode> refused) {
    AtomicInteger next = new AtomicInteger();
    try (VerglasClient client = client(server)) {
      for (int b = 0; b < batches; b++) {
        try {
          acked.add(push(client, clientId * 1_000L + next.getAndAdd(10), 3));
        } catch (VerglasException e) {
          refused.add(e.code());
        }
      }
    }
    return null;
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
