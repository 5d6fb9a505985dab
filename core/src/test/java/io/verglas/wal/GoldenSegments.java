package io.verglas.wal;

import io.verglas.arrow.ArrowIpc;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The version-2 golden segment: how it was made (run with
 * {@code -Dverglas.golden.write=core/src/test/resources/wal/segment-v2.bin} to make it again,
 * only for a new version) and how tests read it.
 */
class GoldenSegments {
  static final WalSegmentHeader HEADER_V2 = new WalSegmentHeader(
      "6f1c2c1e-0000-4000-8000-000000000002", List.of("demo", "events"), 4, "ingest-0.1", 43L,
      128, 300L, 400L, 1_800_000_000_000L);
  private static final int ROWS = 64;

  @Test
  @EnabledIfSystemProperty(named = "verglas.golden.write", matches = ".+")
  void writeVersionTwo() throws IOException {
    try (BufferAllocator allocator = new RootAllocator()) {
      List<WalBatch> batches = List.of(
          new WalBatch(300L, ROWS, "key-zstd", ipc(allocator, 0, CompressionUtil.CodecType.ZSTD)),
          new WalBatch(400L, ROWS, null, ipc(allocator, ROWS, CompressionUtil.CodecType.LZ4_FRAME)));
      Files.write(Path.of(System.getProperty("verglas.golden.write")),
          WalSegmentCodec.encode(HEADER_V2, batches));
    }
  }

  /** {@code id} from {@code first}, {@code name} "row-<id>" (compressible), one IPC stream. */
  private static byte[] ipc(BufferAllocator allocator, int first, CompressionUtil.CodecType codec)
      throws IOException {
    try (BigIntVector id = new BigIntVector("id", allocator);
        VarCharVector name = new VarCharVector("name", allocator)) {
      for (int i = 0; i < ROWS; i++) {
        id.setSafe(i, first + i);
        name.setSafe(i, ("row-" + (first + i)).getBytes(StandardCharsets.UTF_8));
      }
      id.setValueCount(ROWS);
      name.setValueCount(ROWS);
      try (VectorSchemaRoot root = VectorSchemaRoot.of(id, name)) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null,
            Channels.newChannel(bytes), IpcOption.DEFAULT, CommonsCompressionFactory.INSTANCE,
            codec)) {
          writer.start();
          writer.writeBatch();
          writer.end();
        }
        return bytes.toByteArray();
      }
    }
  }

  static List<String> expectedRows() {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 2 * ROWS; i++) {
      rows.add(i + ":row-" + i);
    }
    return rows;
  }

  /** Every batch's rows as "id:name". */
  static List<String> rows(WalSegment segment) throws IOException {
    List<String> rows = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (WalBatch batch : segment.batches()) {
        try (ArrowStreamReader reader = ArrowIpc.open(batch.arrowIpc(), allocator)) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              rows.add(root.getVector("id").getObject(i) + ":" + root.getVector("name").getObject(i));
            }
          }
        }
      }
    }
    return rows;
  }

  /** The codec each batch's record batch message names ("none" when uncompressed). */
  static List<String> codecs(WalSegment segment) throws IOException {
    List<String> codecs = new ArrayList<>();
    for (WalBatch batch : segment.batches()) {
      ReadChannel in = new ReadChannel(Channels.newChannel(
          new ByteArrayInputStream(batch.arrowIpc())));
      MessageSerializer.readMessage(in); // the schema
      MessageMetadataResult records = MessageSerializer.readMessage(in);
      RecordBatch header = (RecordBatch) records.getMessage().header(new RecordBatch());
      BodyCompression compression = header.compression();
      codecs.add(compression == null ? "none"
          : compression.codec() == CompressionType.ZSTD ? "zstd" : "lz4_frame");
    }
    return codecs;
  }
}
