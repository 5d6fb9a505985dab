package io.verglas.bench.materialize;

import io.verglas.arrow.ArrowIpc;
import io.verglas.arrow.ArrowSchemas;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Table;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Writes WAL segments of {@link UpsertRows} in the format the ingest server writes them (Arrow
 * IPC batches in a segment, each batch stamped with a hybrid-clock value larger than all before),
 * one sequence per stream, and PUTs them to the bench S3 endpoint.
 */
final class BenchWal implements AutoCloseable {
  static final int BATCH_ROWS = 10_000;

  private final S3Client s3;
  private final String bucket;
  private final Table table;
  private final WalLayout layout = WalLayout.defaults();
  private final BufferAllocator allocator = new RootAllocator();
  private final org.apache.arrow.vector.types.pojo.Schema arrow;
  private final long[] nextSequence;
  private final long keys;
  private long clock = System.currentTimeMillis() << 16;

  BenchWal(S3Client s3, String bucket, Table table, int streams, long keys) {
    this.s3 = s3;
    this.bucket = bucket;
    this.table = table;
    this.arrow = ArrowSchemas.toArrow(table.schema());
    this.nextSequence = new long[streams];
    this.keys = keys;
  }

  static String streamId(int stream) {
    return "bench-" + stream;
  }

  /** A segment of upserts [first, first + count) for {@code stream}, encoded but not stored. */
  Segment segment(int stream, long first, int count) {
    List<WalBatch> batches = new ArrayList<>();
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long start = first; start < first + count; start += BATCH_ROWS) {
      int rows = (int) Math.min(BATCH_ROWS, first + count - start);
      byte[] ipc;
      try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
        UpsertRows.fill(root, start, rows, keys);
        ipc = ArrowIpc.encode(root);
      }
      long hlc = tick();
      min = Math.min(min, hlc);
      max = Math.max(max, hlc);
      batches.add(new WalBatch(hlc, rows, null, ipc));
    }
    long sequence = nextSequence[stream]++;
    List<String> name = new ArrayList<>(List.of(table.name().split("\\.")));
    name.remove(0); // the catalog name
    WalSegmentHeader header = new WalSegmentHeader(table.uuid().toString(), name,
        table.schema().schemaId(), streamId(stream), sequence, count, min, max,
        System.currentTimeMillis());
    return new Segment(streamId(stream), sequence, count,
        layout.segmentKey(streamId(stream), sequence), WalSegmentCodec.encode(header, batches));
  }

  /** Stores {@code segment}; returns the wall-clock millis when the PUT was acknowledged. */
  long put(Segment segment) {
    s3.putObject(b -> b.bucket(bucket).key(segment.key()), RequestBody.fromBytes(segment.bytes()));
    return System.currentTimeMillis();
  }

  private synchronized long tick() {
    clock = Math.max(clock + 1, System.currentTimeMillis() << 16);
    return clock;
  }

  @Override
  public void close() {
    allocator.close();
  }

  record Segment(String streamId, long sequence, long rows, String key, byte[] bytes) {}
}
