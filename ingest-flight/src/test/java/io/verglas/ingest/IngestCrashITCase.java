package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowIpc;
import io.verglas.catalog.Catalogs;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An ingest server in a child process is killed with SIGKILL while four clients push batches
 * with idempotency keys. Afterwards every acknowledged batch is in the WAL exactly where its
 * ack says, every listed segment is whole (and cut or bit-flipped copies of it are refused), and
 * a restarted server continues the stream: the clients resend every unacknowledged batch with
 * its key, and in the end every key is in the WAL exactly once and no sequence was reused.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IngestCrashITCase {
  private static final String STREAM = "crashy";
  private static final TableIdentifier TABLE = TestTables.id("crash", "events");
  private static final int CLIENTS = 4;
  private static final int ROWS_PER_BATCH = 50;
  private static final int ACKS_BEFORE_KILL = 120;

  @TempDir
  Path dir;

  /** What one client sent: batch keys in order, their first row id, and their acks. */
  private static final class Sent {
    final Map<String, Long> firstId = new ConcurrentHashMap<>();
    final Map<String, PutAck> acked = new ConcurrentHashMap<>();
    final Set<String> keys = java.util.Collections.synchronizedSet(new LinkedHashSet<>());
  }

  @Test
  void everyAcknowledgedBatchSurvivesSigkillAndRetriedKeysAreWrittenOnce() throws Exception {
    try (TestEnvironment env = new TestEnvironment(dir);
        BufferAllocator allocator = new RootAllocator()) {
      Sent sent = new Sent();

      Process first = startChild(env);
      int port = awaitReady(first);
      try (VerglasClient admin = client(port)) {
        admin.createTable(TestTables.events("crash", "events"));
      }
      AtomicBoolean killed = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      List<Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int clientId = c;
        clients.add(pool.submit(() -> pushUntilFailure(port, clientId, sent, killed)));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (sent.acked.size() < ACKS_BEFORE_KILL) {
        assertThat(System.nanoTime()).as("acks before the kill").isLessThan(deadline);
        Thread.sleep(5);
      }
      first.destroyForcibly(); // SIGKILL
      killed.set(true);
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
      for (Future<?> client : clients) {
        client.get(60, TimeUnit.SECONDS);
      }
      Map<String, PutAck> ackedBeforeKill = new HashMap<>(sent.acked);
      assertThat(ackedBeforeKill.size()).isGreaterThanOrEqualTo(ACKS_BEFORE_KILL);

      // 1. Every acknowledged batch is readable where its ack says; every segment is whole.
      Map<String, WalSegment> wal = readWal(env);
      assertAcknowledgedBatchesAreInTheWal(wal, ackedBeforeKill, sent, allocator);
      assertCutAndFlippedCopiesAreRefused(env);

      // 2. A restarted server continues the stream; the clients resend what was not acked.
      Process second = startChild(env);
      int secondPort = awaitReady(second);
      try {
        List<Future<?>> resends = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
          int clientId = c;
          resends.add(pool.submit(() -> resendUnacknowledged(secondPort, clientId, sent)));
        }
        for (Future<?> resend : resends) {
          resend.get(60, TimeUnit.SECONDS);
        }
      } finally {
        second.destroy(); // SIGTERM: a clean stop
        assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
      pool.shutdown();

      Map<String, WalSegment> after = readWal(env);
      assertThat(sent.acked.keySet()).containsExactlyInAnyOrderElementsOf(sent.keys);
      assertAcknowledgedBatchesAreInTheWal(after, sent.acked, sent, allocator);
      for (Map.Entry<String, PutAck> early : ackedBeforeKill.entrySet()) {
        assertThat(sent.acked.get(early.getKey())).as("an ack never changes").isEqualTo(early.getValue());
      }
      Map<String, Integer> copies = new HashMap<>();
      for (WalSegment segment : after.values()) {
        for (WalBatch batch : segment.batches()) {
          copies.merge(batch.idempotencyKey(), 1, Integer::sum);
        }
      }
      assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(sent.keys);
      assertThat(copies.values()).as("every key is in the WAL exactly once").containsOnly(1);
      // No sequence was reused: every segment written before the kill is still there, as it was.
      for (Map.Entry<String, WalSegment> old : wal.entrySet()) {
        assertThat(after.get(old.getKey()).header()).as("segment %s", old.getKey())
            .isEqualTo(old.getValue().header());
      }
      assertThat(after.size()).isGreaterThan(wal.size());
      long absorbed = sent.acked.entrySet().stream()
          .filter(e -> !ackedBeforeKill.containsKey(e.getKey()))
          .filter(e -> wal.containsKey(e.getValue().stream() + "/" + e.getValue().sequence()))
          .count();
      System.out.printf("crash test: %d batches sent, %d acknowledged before SIGKILL, %d resent, "
          + "%d of them already durable (answered from their key)%n", sent.keys.size(),
          ackedBeforeKill.size(), sent.keys.size() - ackedBeforeKill.size(), absorbed);
    }
  }

  /** Pushes keyed batches through one pipelined stream until the server goes away. */
  private Void pushUntilFailure(int port, int clientId, Sent sent, AtomicBoolean killed) {
    try (VerglasClient client = client(port); RowBatchBuilder rows = client.rowBatchBuilder(TABLE)) {
      TableWriter writer = client.openWriter(TABLE);
      for (int b = 0; !killed.get(); b++) {
        String key = "c" + clientId + "-b" + b;
        long firstId = clientId * 1_000_000L + b * 100L;
        VectorSchemaRoot batch = batch(rows, firstId);
        sent.keys.add(key);
        sent.firstId.put(key, firstId);
        CompletableFuture<PutAck> ack;
        try {
          ack = writer.write(batch, key);
        } catch (RuntimeException serverGone) {
          break;
        } finally {
          batch.close();
        }
        ack.thenAccept(a -> sent.acked.put(key, a));
      }
      try {
        writer.close();
      } catch (RuntimeException expected) {
        // the server was killed
      }
    }
    return null;
  }

  /** Sends every batch of this client that was not acknowledged again, with its key. */
  private Void resendUnacknowledged(int port, int clientId, Sent sent) {
    List<String> mine = new ArrayList<>();
    synchronized (sent.keys) {
      for (String key : sent.keys) {
        if (key.startsWith("c" + clientId + "-") && !sent.acked.containsKey(key)) {
          mine.add(key);
        }
      }
    }
    try (VerglasClient client = client(port); RowBatchBuilder rows = client.rowBatchBuilder(TABLE);
        TableWriter writer = client.openWriter(TABLE)) {
      for (String key : mine) {
        try (VectorSchemaRoot batch = batch(rows, sent.firstId.get(key))) {
          writer.write(batch, key).thenAccept(a -> sent.acked.put(key, a));
        }
      }
      writer.flush();
    }
    return null;
  }

  private static VectorSchemaRoot batch(RowBatchBuilder rows, long firstId) {
    for (int r = 0; r < ROWS_PER_BATCH; r++) {
      rows.add(Map.of("id", firstId + r, "name", "row-" + (firstId + r)));
    }
    return rows.build();
  }

  private static void assertAcknowledgedBatchesAreInTheWal(Map<String, WalSegment> wal,
      Map<String, PutAck> acked, Sent sent, BufferAllocator allocator) throws Exception {
    for (Map.Entry<String, PutAck> entry : acked.entrySet()) {
      PutAck ack = entry.getValue();
      WalSegment segment = wal.get(ack.stream() + "/" + ack.sequence());
      assertThat(segment).as("segment of %s", ack).isNotNull();
      WalBatch batch = segment.batches().get(ack.batch());
      assertThat(batch.idempotencyKey()).isEqualTo(entry.getKey());
      assertThat(batch.hlc()).isEqualTo(ack.hlc());
      assertThat(batch.rowCount()).isEqualTo(ack.rows()).isEqualTo(ROWS_PER_BATCH);
      try (ArrowStreamReader reader = ArrowIpc.open(batch.arrowIpc(), allocator)) {
        assertThat(reader.loadNextBatch()).isTrue();
        BigIntVector ids = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        assertThat(ids.get(0)).isEqualTo(sent.firstId.get(entry.getKey()));
        assertThat(ids.get(ROWS_PER_BATCH - 1)).isEqualTo(sent.firstId.get(entry.getKey())
            + ROWS_PER_BATCH - 1);
      }
    }
  }

  /** A partial or damaged copy of any segment is never read as valid. */
  private static void assertCutAndFlippedCopiesAreRefused(TestEnvironment env) {
    Random random = new Random(7);
    for (String key : walKeys(env)) {
      byte[] bytes = env.s3().getObjectAsBytes(b -> b.bucket(TestEnvironment.BUCKET).key(key))
          .asByteArray();
      for (int i = 0; i < 3; i++) {
        byte[] cut = Arrays.copyOf(bytes, random.nextInt(bytes.length));
        assertThatThrownBy(() -> WalSegmentCodec.decode(cut))
            .isInstanceOf(CorruptSegmentException.class);
        byte[] flipped = bytes.clone();
        flipped[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
        assertThatThrownBy(() -> WalSegmentCodec.decode(flipped))
            .isInstanceOf(CorruptSegmentException.class);
      }
    }
  }

  /** Every segment of the stream's lanes, decoded (any damaged one fails the test). */
  private static Map<String, WalSegment> readWal(TestEnvironment env) {
    Map<String, WalSegment> segments = new HashMap<>();
    for (String key : walKeys(env)) {
      WalSegment segment = env.segment(key);
      segments.put(segment.header().streamId() + "/" + segment.header().sequence(), segment);
    }
    return segments;
  }

  private static List<String> walKeys(TestEnvironment env) {
    return env.s3().listObjectsV2Paginator(ListObjectsV2Request.builder()
            .bucket(TestEnvironment.BUCKET).prefix(TestEnvironment.LAYOUT.prefix()).build())
        .contents().stream().map(S3Object::key)
        .filter(key -> TestEnvironment.LAYOUT.parse(key).isPresent()).toList();
  }

  private Process startChild(TestEnvironment env) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx512m",
        "-cp", System.getProperty("java.class.path"),
        IngestServerMain.class.getName(),
        "--stream", STREAM, "--token", TestEnvironment.TOKEN, "--port", "0",
        "--s3-endpoint", env.endpoint().endpoint().toString(),
        "--s3-access-key", env.endpoint().accessKey(), "--s3-secret-key", env.endpoint().secretKey(),
        "--bucket", TestEnvironment.BUCKET, "--flush-interval-ms", "20", "--flush-bytes", "65536"));
    Map<String, String> catalog = Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        env.endpoint().warehouse() + "warehouse", Map.of());
    for (Map.Entry<String, String> prop : catalog.entrySet()) {
      command.add("--catalog-prop");
      command.add(prop.getKey() + "=" + prop.getValue());
    }
    command.add("--catalog-name");
    command.add("test");
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
  }

  /** Reads the child's output until it says it serves; keeps draining it afterwards. */
  private static int awaitReady(Process child) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8));
    CompletableFuture<Integer> port = new CompletableFuture<>();
    StringBuilder log = new StringBuilder();
    Thread drain = new Thread(() -> {
      try {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.startsWith(IngestServerMain.READY)) {
            port.complete(Integer.parseInt(line.substring(IngestServerMain.READY.length()).trim()));
          } else if (log.length() < 20_000) {
            log.append(line).append('\n');
          }
        }
      } catch (java.io.IOException e) {
        // the child is gone
      }
      port.completeExceptionally(new IllegalStateException("ingest child exited before it was "
          + "ready:\n" + log));
    }, "crash-test-child-output");
    drain.setDaemon(true);
    drain.start();
    return port.get(60, TimeUnit.SECONDS);
  }

  private static VerglasClient client(int port) {
    return VerglasClient.builder().uri("grpc+tcp://127.0.0.1:" + port).token(TestEnvironment.TOKEN)
        .build();
  }
}
