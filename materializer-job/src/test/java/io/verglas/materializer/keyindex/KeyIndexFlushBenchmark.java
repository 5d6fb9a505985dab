package io.verglas.materializer.keyindex;

import io.verglas.materializer.MaterializerJob;
import io.verglas.materializer.delta.TableBuffer;
import io.verglas.materializer.source.WalRow;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The writer's flush path per primary-key row, in one JVM, on Flink's RocksDB keyed state: a
 * chunk of upserts is buffered ({@link TableBuffer}), reduced to the newest row per key, and
 * each row's entry is read through the {@link KeyIndex} and replaced, as
 * {@code DeltaWriterOperator.materialize} does (without the Parquet file, which a background
 * thread writes); every {@code chunksPerCheckpoint} chunks the index is written back into its
 * pages, as at a checkpoint (on the measured thread: the job does it on a thread of its own). The macro benchmark ({@code ./verglas bench materialize}) runs the whole job
 * beside its peers, but on a shared 2-core machine its CPU seconds move by 30-70% between runs;
 * variants of this path compared here, in one JVM, one after the other, show changes of a few
 * percent.
 *
 * <p>Workload as in the macro benchmark: upserts over {@code keys} keys (each key's bytes as the
 * bench's long keys), in flush chunks of {@code chunkRows}. Run: {@code mvn -Pjmh -pl
 * materializer-job -am verify} (see the README).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class KeyIndexFlushBenchmark {
  static final String TABLE = "8d0e6f53-5b8a-4a43-9a43-2f4f0bb1d9a1";
  static final int CHUNK_ROWS = 8192;
  /** The job's default for a parallelism of 1: the buffer's key groups are the state's. */
  static final int MAX_PARALLELISM = 128;

  @Param({"500000"})
  int keys;

  @Param({"1000000"})
  int cacheEntries;

  /** 48 chunks: the rows the job materializes between two checkpoints in the macro benchmark. */
  @Param({"48"})
  int chunksPerCheckpoint;

  private KeyedOneInputStreamOperatorTestHarness<String, WalRow, Void> harness;
  private IndexOperator operator;
  private KeyIndex index;
  private SplittableRandom random;
  private long hlc;
  private List<WalRow> chunk;
  private long chunks;

  @Setup(Level.Trial)
  public void open() throws Exception {
    operator = new IndexOperator();
    harness = new KeyedOneInputStreamOperatorTestHarness<>(operator, row -> row.routingKey,
        Types.STRING, MAX_PARALLELISM, 1, 0);
    harness.setStateBackend(stateBackend());
    harness.open();
    index = new KeyIndex(new KeyedIndexPageStore(operator.getKeyedStateBackend()),
        MAX_PARALLELISM, cacheEntries, true, null);
    random = new SplittableRandom(42);
  }

  /**
   * RocksDB as the job configures it, with the memory a MiniCluster's slot has (128 MiB of
   * managed memory): the test harness has none, and RocksDB bounded by nothing flushed a memtable
   * every few KiB and stalled writes behind its compactions.
   */
  private EmbeddedRocksDBStateBackend stateBackend() {
    Configuration conf = new Configuration();
    MaterializerJob.rocksDbOptions(conf);
    conf.set(RocksDBOptions.FIX_PER_SLOT_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
    return new EmbeddedRocksDBStateBackend().configure(conf, getClass().getClassLoader());
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    harness.close();
  }

  /** The next chunk's rows, as the writer receives them (made outside the measured time). */
  @Setup(Level.Invocation)
  public void nextChunk() {
    List<WalRow> rows = new ArrayList<>(CHUNK_ROWS);
    for (int i = 0; i < CHUNK_ROWS; i++) {
      rows.add(upsert(random.nextInt(keys)));
    }
    chunk = rows;
  }

  /** One flush chunk of upserts, per row. */
  @Benchmark
  @OperationsPerInvocation(CHUNK_ROWS)
  public int flushChunk() throws Exception {
    TableBuffer buffer = new TableBuffer(TABLE, "bench.t", MAX_PARALLELISM);
    for (WalRow row : chunk) {
      buffer.add(row);
    }
    int written = 0;
    for (WalRow row : buffer.latestPerKey()) {
      KeyIndex.Slot slot = index.read(row);
      slot.update(KeyEntry.live(row.position(), "data/00000-0-file.parquet", written++));
    }
    index.endBatch();
    if (++chunks % chunksPerCheckpoint == 0) {
      index.writeBack();
    }
    return written;
  }

  private WalRow upsert(long key) {
    WalRow row = new WalRow();
    row.tableUuid = TABLE;
    row.tableName = "bench.t";
    row.op = WalRow.UPSERT;
    row.hlc = ++hlc;
    row.streamId = "bench-0";
    row.sequence = hlc / CHUNK_ROWS;
    row.row = (int) (hlc % CHUNK_ROWS);
    row.ordinal = row.row;
    row.segmentRowCount = CHUNK_ROWS;
    row.segmentKey = "_wal/bench-0/" + row.sequence;
    row.key = ByteBuffer.allocate(Long.BYTES).putLong(key).array();
    row.routingKey = WalRow.keyedRoutingKey(TABLE, row.key);
    row.payload = new byte[64];
    return row;
  }

  /** An operator that only holds keyed state, as the writer does. */
  static final class IndexOperator extends AbstractStreamOperator<Void>
      implements OneInputStreamOperator<WalRow, Void> {
    @Override
    public void processElement(StreamRecord<WalRow> element) {
      throw new UnsupportedOperationException("the benchmark drives the state directly");
    }
  }
}
