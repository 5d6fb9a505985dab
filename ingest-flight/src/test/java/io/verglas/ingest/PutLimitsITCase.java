package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.verglas.catalog.Catalogs;
import io.verglas.ingest.validation.BatchLimits;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.BatchCompression;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.wal.WalBatch;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What DoPut calls may bring in: how many run at once (in total and per client connection),
 * how large one message may be, and how many batches one call holds. Each bound is checked
 * against the server's Arrow memory (its own allocator) and the WAL: what was refused left
 * nothing behind, and every acknowledged row is durable.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PutLimitsITCase {
  private static final int MAX_BATCH_BYTES = 1 << 20;
  private static final int MESSAGE_CAP = MAX_BATCH_BYTES + BatchLimits.FRAMING_BYTES;

  @TempDir
  static Path dir;
  private static TestEnvironment env;

  @BeforeAll
  static void start() throws Exception {
    env = new TestEnvironment(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    env.close();
  }

  @Test
  void putsOverTheBoundsAreRefusedUntilOneEnds() throws Exception {
    TableIdentifier table = TestTables.id("limits", "count");
    try (IngestServer server = env.server("limits-count").maxConcurrentPuts(3)
            .maxConcurrentPutsPerConnection(2).build().start();
        VerglasClient a = client(server);
        VerglasClient b = client(server);
        VerglasClient c = client(server);
        VerglasClient anonymous = VerglasClient.builder().uri(server.location()).build()) {
      a.createTable(TestTables.events("limits", "count"));
      List<TableWriter> open = new ArrayList<>();
      open.add(writeAndHold(a, table, 1));
      open.add(writeAndHold(a, table, 2));

      assertRefused(a, table, "Cannot accept DoPut: 2 puts in progress on this "
          + "connection from /127.0.0.1:", "(maxConcurrentPutsPerConnection); retry when one "
          + "has ended");
      open.add(writeAndHold(b, table, 3));
      assertRefused(c, table, "Cannot accept DoPut: 3 puts in progress "
          + "(maxConcurrentPuts); retry when one has ended", "");
      // The token is checked before the bounds: a stranger learns nothing about the load.
      TableWriter stranger = anonymous.openWriter(table);
      CompletableFuture<PutAck> refused = write(stranger, anonymous, 9, 1, 1, null);
      assertThatThrownBy(refused::join).cause().isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
      assertThatThrownBy(stranger::close).isInstanceOf(VerglasException.class);
      assertThat(server.metrics().snapshot().putsInProgress()).isEqualTo(3);

      open.remove(0).close();
      awaitPutsInProgress(server, 2);
      open.add(writeAndHold(c, table, 4));
      for (TableWriter writer : open) {
        writer.close();
      }
      awaitPutsInProgress(server, 0);
      assertThat(server.metrics().snapshot().rejects().get(RejectReason.TOO_MANY_PUTS))
          .isEqualTo(2);
      assertThat(walRows("limits-count")).isEqualTo(4);
    }
  }

  @Test
  void aWriterRefusedForTooManyPutsSendsAgainOnceOneEnded() throws Exception {
    TableIdentifier table = TestTables.id("limits", "retry");
    try (IngestServer server = env.server("limits-retry").maxConcurrentPuts(1).build().start();
        VerglasClient holder = client(server);
        VerglasClient retrying = VerglasClient.builder().uri(server.location())
            .token(TestEnvironment.TOKEN).autoIdempotencyKeys(true).retryBackoff(Duration.ofMillis(100))
            .writeRetries(50).build()) {
      holder.createTable(TestTables.events("limits", "retry"));
      TableWriter held = writeAndHold(holder, table, 1);
      TableWriter writer = retrying.openWriter(table);
      CompletableFuture<PutAck> ack = write(writer, retrying, 2, 5, 10, null);
      awaitRejects(server, 1);
      assertThat(ack).as("refused while the other put runs").isNotDone();

      held.close();
      assertThat(ack.get(30, TimeUnit.SECONDS).rows()).isEqualTo(5);
      writer.close();
      assertThat(walRows("limits-retry")).as("each batch once").isEqualTo(6);
    }
  }

  private static void awaitRejects(IngestServer server, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (server.metrics().snapshot().rejects().getOrDefault(RejectReason.TOO_MANY_PUTS, 0L) < atLeast) {
      assertThat(System.nanoTime()).as("a refusal within 30 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void aBatchOverTheMessageCapIsRefusedUnread() throws Exception {
    TableIdentifier table = TestTables.id("limits", "size");
    try (BufferAllocator serverAllocator = new RootAllocator();
        IngestServer server = env.server("limits-size").maxBatchBytes(MAX_BATCH_BYTES)
            .allocator(serverAllocator).build().start();
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("limits", "size"));
      // Another call of the same client (one connection) lives through the refusals.
      TableWriter bystander = writeAndHold(client, table, 50);

      for (int attempt = 0; attempt < 5; attempt++) {
        TableWriter writer = client.openWriter(table);
        // 4 MiB of strings: within the old cap (twice the limit + 4 MiB), over the new one.
        CompletableFuture<PutAck> refused = write(writer, client, 100, 1_024, 4_096, null);
        assertThatThrownBy(refused::join).cause().isInstanceOfSatisfying(VerglasException.class,
            e -> {
              assertThat(e.code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
              assertThat(e.description()).startsWith("gRPC message exceeds maximum size "
                  + MESSAGE_CAP + ": ");
            });
        assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
      }

      // Once acks were sent on a call, gRPC can only reset it (the server log and the
      // batch_too_large count say why); the batch is not read either.
      TableWriter acked = client.openWriter(table);
      assertThat(write(acked, client, 1, 10, 10, null).join().rows()).isEqualTo(10);
      CompletableFuture<PutAck> reset = write(acked, client, 100, 1_024, 4_096, null);
      assertThatThrownBy(reset::join).cause().isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.CANCELLED));
      assertThatThrownBy(acked::close).isInstanceOf(VerglasException.class);

      assertThat(serverAllocator.getPeakMemoryAllocation()).as("server Arrow memory")
          .isLessThan(MAX_BATCH_BYTES);
      assertThat(server.metrics().snapshot().rejects().get(RejectReason.BATCH_TOO_LARGE))
          .isEqualTo(6);
      assertThat(write(bystander, client, 51, 1, 1, null).join().rows()).isEqualTo(1);
      bystander.close();
      try (TableWriter after = client.openWriter(table)) {
        assertThat(write(after, client, 20, 5, 10, null).join().rows()).isEqualTo(5);
      }
      assertThat(walRows("limits-size")).isEqualTo(17);
    }
  }

  /**
   * A message of a few bytes whose body field announces megabytes: Flight would allocate what
   * the field announces, and keep it when the bytes run out.
   */
  @Test
  void aBodyAnnouncingMoreThanItsMessageCarriesIsRefusedUnallocated() throws Exception {
    TableIdentifier table = TestTables.id("limits", "lie");
    try (BufferAllocator serverAllocator = new RootAllocator();
        IngestServer server = env.server("limits-lie").allocator(serverAllocator).build().start();
        RawFlight raw = new RawFlight(server.port(), TestEnvironment.TOKEN);
        VerglasClient client = client(server)) {
      client.createTable(TestTables.events("limits", "lie"));
      // Under the message cap (64 MiB + 1 MiB) and over it: only the message's size counts.
      for (int announced : new int[] {32 << 20, 256 << 20, 32 << 20}) {
        Status status = raw.putBytes(List.of(lyingBody(announced, 10)));
        // A failed parse is reported by gRPC itself; the server logs the reason.
        assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(status.getDescription()).isEqualTo("Application error processing RPC");
      }
      assertThat(serverAllocator.getPeakMemoryAllocation()).as("server Arrow memory")
          .isLessThan(MAX_BATCH_BYTES);
      assertThat(server.metrics().snapshot().rejects().get(RejectReason.MALFORMED)).isEqualTo(3);
      try (TableWriter writer = client.openWriter(table)) {
        assertThat(write(writer, client, 1, 3, 10, null).join().rows()).isEqualTo(3);
      }
    }
  }

  /** FlightData with only a body field (1000, length-delimited) announcing more than it has. */
  private static byte[] lyingBody(int announced, int carried) {
    ByteArrayOutputStream message = new ByteArrayOutputStream();
    message.write(0xC2);
    message.write(0x3E);
    int length = announced;
    while ((length & ~0x7F) != 0) {
      message.write((length & 0x7F) | 0x80);
      length >>>= 7;
    }
    message.write(length);
    message.writeBytes(new byte[carried]);
    return message.toByteArray();
  }

  /**
   * The attack in small: more parallel puts of batches just under the limit than the server
   * admits. Each writer holds its put open until all have tried, so exactly the bound is in.
   */
  @Test
  void parallelPutsBeyondTheBoundAreRefusedAndWhatIsAcknowledgedIsDurable() throws Exception {
    int admitted = 3;
    int writers = 8;
    int batches = 4;
    TableIdentifier table = TestTables.id("limits", "flood");
    try (BufferAllocator serverAllocator = new RootAllocator();
        IngestServer server = env.server("limits-flood").maxBatchBytes(MAX_BATCH_BYTES)
            .maxConcurrentPuts(admitted).maxConcurrentPutsPerConnection(admitted)
            .allocator(serverAllocator).build().start();
        VerglasClient setup = client(server)) {
      setup.createTable(TestTables.events("limits", "flood"));
      CyclicBarrier allTried = new CyclicBarrier(writers);
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      List<Future<List<PutAck>>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        results.add(pool.submit(() -> flood(server, table, writer, batches, allTried)));
      }
      long ackedRows = 0;
      int refused = 0;
      for (Future<List<PutAck>> result : results) {
        List<PutAck> acks = result.get(60, TimeUnit.SECONDS);
        if (acks == null) {
          refused++;
        } else {
          assertThat(acks).hasSize(batches);
          ackedRows += acks.stream().mapToLong(PutAck::rows).sum();
        }
      }
      pool.shutdown();

      assertThat(refused).isEqualTo(writers - admitted);
      assertThat(ackedRows).isEqualTo((long) admitted * batches * FLOOD_ROWS);
      assertThat(walRows("limits-flood")).isEqualTo(ackedRows);
      // The documented bound: per admitted put one batch, and its compressed copy.
      assertThat(serverAllocator.getPeakMemoryAllocation()).as("server Arrow memory")
          .isLessThanOrEqualTo(2L * admitted * MESSAGE_CAP);
      assertThat(server.metrics().snapshot().rejects().get(RejectReason.TOO_MANY_PUTS))
          .isEqualTo(writers - admitted);
    }
  }

  /**
   * A writer far ahead of a server whose WAL cannot keep up: the put holds the batch it is
   * handing on and receives no other (Flight alone would read five batches ahead).
   */
  @Test
  void aPutHoldsOneBatchAtATime() throws Exception {
    Catalog local = Catalogs.load("local", Map.of("type", "jdbc",
        "uri", "jdbc:sqlite:" + dir.resolve("flow.db"), "jdbc.schema-version", "V1",
        "warehouse", dir.resolve("flow-warehouse").toUri().toString()));
    TableIdentifier table = TestTables.id("limits", "flow");
    try (TestEnvironment store = new TestEnvironment(Files.createDirectories(dir.resolve("flow")));
        BufferAllocator serverAllocator = new RootAllocator();
        IngestServer server = IngestServer.builder().catalog(local).objectStore(store.endpoint())
            .streamId("limits-flow").token(TestEnvironment.TOKEN).allocator(serverAllocator)
            .maxBatchBytes(MAX_BATCH_BYTES).maxBufferedBytes(2L << 20).flushBytes(1 << 20)
            .flushInterval(Duration.ofMillis(20)).backpressureTimeout(Duration.ofSeconds(2))
            .putMaxAttempts(30).putInitialBackoff(Duration.ofMillis(100))
            .putMaxBackoff(Duration.ofMillis(100)).build().start();
        VerglasClient client = client(server);
        TestVectors vectors = new TestVectors(client.allocator())) {
      client.createTable(TestTables.events("limits", "flow"));
      store.stopObjectStore();
      Random random = new Random(42);
      TableWriter writer = client.openWriter(table);
      // Writes block once gRPC holds back what the server did not ask for; the first write
      // after the call failed throws.
      assertThatThrownBy(() -> {
        for (int b = 0; b < 12; b++) {
          VectorSchemaRoot batch = batch(vectors, b * 1_000L, FLOOD_ROWS, 1_000, random);
          writer.write(batch);
        }
        writer.flush();
      }).isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
      assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
      // The batch blocked in the WAL buffer and its compressed copy (Arrow rounds each to
      // 1 MiB), plus acks; Flight alone would have held five more batches.
      assertThat(serverAllocator.getPeakMemoryAllocation()).as("server Arrow memory")
          .isLessThan(3L * MAX_BATCH_BYTES);
    }
  }

  private static final int FLOOD_ROWS = 900;

  /** Writes a batch of ~0.9 MiB, waits for all writers, then writes the rest; null if refused. */
  private static List<PutAck> flood(IngestServer server, TableIdentifier table, int writer,
      int batches, CyclicBarrier allTried) throws Exception {
    try (VerglasClient client = client(server);
        TestVectors vectors = new TestVectors(client.allocator())) {
      TableWriter put = client.openWriter(table);
      long firstId = writer * 100_000L;
      boolean admitted;
      try {
        put.write(batch(vectors, firstId, FLOOD_ROWS, 1_000, null)).join();
        admitted = true;
      } catch (CompletionException e) {
        assertThat(e.getCause()).isInstanceOfSatisfying(VerglasException.class,
            error -> assertThat(error.code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED));
        admitted = false;
      }
      allTried.await(30, TimeUnit.SECONDS);
      if (!admitted) {
        assertThatThrownBy(put::close).isInstanceOf(VerglasException.class);
        return null;
      }
      for (int b = 1; b < batches; b++) {
        put.write(batch(vectors, firstId + b * FLOOD_ROWS, FLOOD_ROWS, 1_000, null));
      }
      put.close();
      return put.acks();
    }
  }

  /** Opens a put, writes one row and waits for its ack; the put stays open. */
  private static TableWriter writeAndHold(VerglasClient client, TableIdentifier table, long id)
      throws Exception {
    TableWriter writer = client.openWriter(table);
    assertThat(write(writer, client, id, 1, 1, null).join().rows()).isEqualTo(1);
    return writer;
  }

  private static void assertRefused(VerglasClient client, TableIdentifier table, String start,
      String end) throws Exception {
    TableWriter writer = client.openWriter(table);
    CompletableFuture<PutAck> refused = write(writer, client, 99, 1, 1, null);
    assertThatThrownBy(refused::join).cause().isInstanceOfSatisfying(VerglasException.class,
        e -> {
          assertThat(e.code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
          assertThat(e.description()).startsWith(start).endsWith(end);
        });
    assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
  }

  /** Writes a {@link #batch} made in the writer's client's memory. */
  private static CompletableFuture<PutAck> write(TableWriter writer, VerglasClient client,
      long firstId, int rows, int chars, Random random) throws Exception {
    try (TestVectors vectors = new TestVectors(client.allocator())) {
      return writer.write(batch(vectors, firstId, rows, chars, random));
    }
  }

  /** {@code rows} rows from {@code firstId}, names of {@code chars} letters (random if asked). */
  private static VectorSchemaRoot batch(TestVectors vectors, long firstId, int rows, int chars,
      Random random) {
    Long[] ids = new Long[rows];
    String[] names = new String[rows];
    for (int i = 0; i < rows; i++) {
      ids[i] = firstId + i;
      names[i] = random == null ? "n".repeat(chars) : letters(random, chars);
    }
    return vectors.root(vectors.longs("id", ids), vectors.strings("name", names));
  }

  /** Letters that zstd cannot shrink much, so the WAL buffer fills as fast as batches arrive. */
  private static String letters(Random random, int chars) {
    char[] out = new char[chars];
    for (int i = 0; i < chars; i++) {
      out[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(out);
  }

  private static long walRows(String stream) {
    return env.laneSegments(stream).stream().flatMap(s -> s.batches().stream())
        .mapToLong(WalBatch::rowCount).sum();
  }

  private static void awaitPutsInProgress(IngestServer server, long puts) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.metrics().snapshot().putsInProgress() != puts) {
      assertThat(System.nanoTime()).as("puts in progress reach %d", puts).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** A client that does not retry, so each refusal is seen as it happens. */
  /**
   * A client that sends plain Arrow: these limits are on messages as they travel, and the
   * SDK's compression would shrink the big batches under the message cap (a compressed batch
   * over the byte limit once decompressed is CompressedBatchesITCase's).
   */
  private static VerglasClient client(IngestServer server) {
    return VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN)
        .writeRetries(0).batchCompression(BatchCompression.none()).build();
  }
}
