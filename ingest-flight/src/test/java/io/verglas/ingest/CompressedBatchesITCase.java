package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.verglas.arrow.ArrowIpc;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.sdk.BatchCompression;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batches a client compressed (Arrow IPC buffer compression) reach the WAL with the client's
 * compressed buffers, read back to the rows sent; compressed input the server cannot read is
 * refused whole with a message that says what is wrong (the other bad inputs, compressed, are
 * {@link CompressedBadInputITCase}).
 */
@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS,
    threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CompressedBatchesITCase {
  private static final String STREAM = "compressed";
  private static final int ROWS = 2_000;

  @TempDir
  static Path dir;
  private static TestEnvironment env;
  private static BufferAllocator serverAllocator;
  private static IngestServer server;

  private BufferAllocator allocator;
  private TestVectors vectors;
  private TableIdentifier table;
  private String tableName;

  @BeforeAll
  static void start() throws Exception {
    env = new TestEnvironment(dir);
    serverAllocator = new RootAllocator();
    server = env.server(STREAM).allocator(serverAllocator).build().start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    serverAllocator.close();
    env.close();
  }

  @BeforeEach
  void createTable(TestInfo test) {
    allocator = new RootAllocator();
    vectors = new TestVectors(allocator);
    tableName = test.getTestMethod().orElseThrow().getName().toLowerCase();
    try (VerglasClient client = client(BatchCompression.none())) {
      client.createTable(TestTables.events("zip", tableName));
    }
    table = TestTables.id("zip", tableName);
  }

  @AfterEach
  void close() throws Exception {
    vectors.close();
    allocator.close();
  }

  @Test
  void zstdBatchesPassThroughToTheWal() throws Exception {
    assertPassedThrough(BatchCompression.Codec.ZSTD, CompressionUtil.CodecType.ZSTD);
  }

  @Test
  void lz4FrameBatchesPassThroughToTheWal() throws Exception {
    // The server compresses with zstd only: lz4_frame in the WAL can only be the client's.
    assertPassedThrough(BatchCompression.Codec.LZ4_FRAME, CompressionUtil.CodecType.LZ4_FRAME);
  }

  @Test
  void batchesUnderTheThresholdGoUncompressedAndTheServerCompressesThem() throws Exception {
    try (VerglasClient client = client(BatchCompression.of(BatchCompression.Codec.LZ4_FRAME,
            1 << 30));
        VectorSchemaRoot batch = rows(0)) {
      client.push(table, List.of(batch));
    }
    assertThat(walBatches()).singleElement()
        .satisfies(b -> assertThat(codec(b)).isEqualTo(CompressionUtil.CodecType.ZSTD.getType()));
  }

  @Test
  void corruptZstdBuffer() throws Exception {
    assertCorruptRefused(CompressionUtil.CodecType.ZSTD, "Cannot decompress zstd buffer");
  }

  @Test
  void corruptLz4FrameBuffer() throws Exception {
    assertCorruptRefused(CompressionUtil.CodecType.LZ4_FRAME, "Cannot decompress lz4_frame buffer");
  }

  @Test
  void unsupportedCodec() throws Exception {
    try (VectorSchemaRoot batch = rows(0)) {
      List<RawFlight.IpcMessage> messages =
          RawFlight.compressedMessages(batch, CompressionUtil.CodecType.ZSTD, (byte) 7);
      assertRefused(messages, messages.get(1).body(), "Cannot read batch 0 of the stream to "
          + "zip.unsupportedcodec: malformed Arrow data: compression codec 7 is not supported "
          + "(this server reads zstd (1) and lz4_frame (0))", RejectReason.MALFORMED);
    }
  }

  /** A buffer announcing far more than the batch limit is refused before it is inflated. */
  @Test
  void announcedLengthOverTheBatchLimit() throws Exception {
    try (VectorSchemaRoot batch = rows(0)) {
      List<RawFlight.IpcMessage> messages =
          RawFlight.compressedMessages(batch, CompressionUtil.CodecType.ZSTD, (byte) 1);
      byte[] body = messages.get(1).body().clone();
      long[] buffer = compressedBuffer(messages.get(1), body);
      ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).putLong((int) buffer[0], 1L << 40);
      assertRefused(messages, body, "Cannot write batch 0 to zip.announcedlengthoverthebatchlimit:"
          + " 1 problem: batch has 1099511", RejectReason.BATCH_TOO_LARGE);
    }
  }

  private void assertPassedThrough(BatchCompression.Codec codec,
      CompressionUtil.CodecType type) throws Exception {
    List<RawFlight.IpcMessage> sent;
    try (VerglasClient client = client(BatchCompression.of(codec, 0));
        VectorSchemaRoot first = rows(0);
        VectorSchemaRoot second = rows(ROWS)) {
      sent = RawFlight.compressedMessages(first, type, type.getType());
      client.push(table, List.of(first, second));
    }
    List<WalBatch> batches = walBatches();
    assertThat(batches).hasSize(2);
    assertThat(batches).allSatisfy(b -> assertThat(codec(b)).isEqualTo(type.getType()));
    // The compressed buffers are the client's, byte for byte (the two batches may have gone to
    // different lanes, so either may be listed first).
    assertThat(batches).anySatisfy(b -> assertThat(recordBatch(b).body())
        .isEqualTo(sent.get(1).body()));
    assertThat(ids(batches)).containsExactlyInAnyOrderElementsOf(expectedIds(2 * ROWS));
  }

  private void assertCorruptRefused(CompressionUtil.CodecType type, String message)
      throws Exception {
    try (VectorSchemaRoot batch = rows(0)) {
      List<RawFlight.IpcMessage> messages =
          RawFlight.compressedMessages(batch, type, type.getType());
      byte[] body = messages.get(1).body().clone();
      long[] buffer = compressedBuffer(messages.get(1), body);
      // The compressed frame's first bytes (its magic number) after the 8-byte length.
      for (int i = 8; i < 12; i++) {
        body[(int) buffer[0] + i] ^= 0x5A;
      }
      assertRefused(messages, body, "Cannot read batch 0 of the stream to zip." + tableName
          + ": malformed Arrow data: " + message, RejectReason.MALFORMED);
    }
  }

  /** The first buffer of a record batch message that is really compressed (not stored raw). */
  private static long[] compressedBuffer(RawFlight.IpcMessage records, byte[] body) {
    ByteBuffer bytes = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
    for (long[] buffer : RawFlight.bufferLayout(records)) {
      if (buffer[1] > 16 && bytes.getLong((int) buffer[0]) > 0) {
        return buffer;
      }
    }
    throw new AssertionError("no compressed buffer in the batch");
  }

  private void assertRefused(List<RawFlight.IpcMessage> messages, byte[] body, String message,
      RejectReason reason) throws Exception {
    long before = server.metrics().snapshot().rejects().get(reason);
    try (RawFlight raw = new RawFlight(server.port(), TestEnvironment.TOKEN)) {
      RawFlight.IpcMessage schema = messages.get(0);
      Status status = raw.put(List.of(
          RawFlight.data(List.of("zip", tableName), schema.header(), schema.body()),
          RawFlight.data(null, messages.get(1).header(), body)));

      assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).startsWith(message);
    }
    assertThat(server.metrics().snapshot().rejects().get(reason) - before).isEqualTo(1);
    TestEnvironment.awaitDrained(server);
    assertThat(walBatches()).isEmpty();
  }

  private VerglasClient client(BatchCompression compression) {
    return VerglasClient.builder().uri(server.location()).token(TestEnvironment.TOKEN)
        .allocator(allocator)
        .batchCompression(compression).build();
  }

  /** {@code ROWS} rows of the events table, ids from {@code first}: compressible columns. */
  private VectorSchemaRoot rows(int first) {
    Long[] ids = new Long[ROWS];
    String[] payloads = new String[ROWS];
    for (int i = 0; i < ROWS; i++) {
      ids[i] = (long) first + i;
      payloads[i] = "payload-" + (i % 10);
    }
    return vectors.root(vectors.longs("id", ids), vectors.strings("name", payloads));
  }

  private List<WalBatch> walBatches() {
    TestEnvironment.awaitDrained(server);
    List<WalBatch> batches = new ArrayList<>();
    for (WalSegment segment : env.laneSegments(STREAM)) {
      if (segment.header().tableName().equals(List.of("zip", tableName))) {
        batches.addAll(segment.batches());
      }
    }
    return batches;
  }

  private static RawFlight.IpcMessage recordBatch(WalBatch batch) {
    return RawFlight.split(Arrays.copyOf(batch.arrowIpc(), batch.arrowIpc().length)).get(1);
  }

  private static byte codec(WalBatch batch) {
    Message message = Message.getRootAsMessage(
        ByteBuffer.wrap(recordBatch(batch).header()).order(ByteOrder.LITTLE_ENDIAN));
    RecordBatch records = (RecordBatch) message.header(new RecordBatch());
    return records.compression() == null ? CompressionUtil.CodecType.NO_COMPRESSION.getType()
        : records.compression().codec();
  }

  private List<Long> ids(List<WalBatch> batches) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (WalBatch batch : batches) {
      try (ArrowStreamReader reader = ArrowIpc.open(batch.arrowIpc(), allocator)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            ids.add((Long) root.getVector("id").getObject(i));
          }
        }
      }
    }
    return ids;
  }

  private static List<Long> expectedIds(int count) {
    List<Long> ids = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      ids.add(i);
    }
    return ids;
  }
}
