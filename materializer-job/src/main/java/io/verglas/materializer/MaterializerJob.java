package io.verglas.materializer;

import io.verglas.materializer.commit.DeltaCommitterOperator;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.delta.TableDeltaTypeInfo;
import io.verglas.materializer.source.WalRow;
import io.verglas.materializer.source.WalRowSerializer;
import io.verglas.materializer.source.WalSource;
import io.verglas.materializer.types.SerializerTypeInfo;
import io.verglas.materializer.write.DeltaWriterOperator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.rocksdb.CompressionType;

/**
 * The materializer: one Flink job that turns the WAL of every Verglas table into Iceberg commits.
 *
 * <pre>
 *   wal-source (FLIP-27, parallel)  ──keyBy(routingKey)──▶  delta-writer (keyed, RocksDB index)
 *        ──keyBy(table)──▶  delta-committer (committer.parallelism, its own task)  ──▶  discard
 * </pre>
 *
 * With a parallelism of one there is no shuffle: the writer is chained to the source (see
 * {@link #keyedByRoute}). Every operator has a stable uid, so a restarted job restores its
 * state. Checkpointing is exactly-once and aligned (the committer relies on it); checkpoints are
 * retained on cancellation so a launcher can restart from the last one.
 */
public final class MaterializerJob {
  public static final String JOB_NAME = "verglas-materializer";
  public static final String SOURCE_UID = "wal-source";
  public static final String WRITER_UID = "delta-writer";
  public static final String COMMITTER_UID = "delta-committer";
  public static final String SINK_UID = "commit-discard";

  private MaterializerJob() {}

  public static void main(String[] args) throws Exception {
    MaterializerConfig config = MaterializerConfig.fromArgs(args);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(configuration(config));
    build(env, config);
    env.execute(JOB_NAME);
  }

  /**
   * The Flink settings the job needs. With a checkpoint directory in the config, the job also
   * brings its own state backend (RocksDB, incremental checkpoints into that directory): what an
   * embedded MiniCluster needs. Without one, a cluster's flink-conf decides (see flink-conf/).
   */
  public static Configuration configuration(MaterializerConfig config) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    conf.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
    conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    // A row goes from the source to a chained writer as the object the source made, instead of
    // a deep copy of it (payload included): the source makes a new row for every record and
    // keeps none, and no operator changes a row it has passed on.
    conf.set(PipelineOptions.OBJECT_REUSE, true);
    if (config.checkpointDir() != null) {
      conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, config.checkpointDir());
      conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
      rocksDbOptions(conf);
    }
    return conf;
  }

  /**
   * The RocksDB settings of the key index (its access pattern: point reads and writes of its
   * pages), also for benchmarks that run the writer's state outside a job. They were measured
   * when the index held one entry per key, read and written per materialized row.
   */
  public static void rocksDbOptions(Configuration conf) {
    // Without bloom filters a get probes every SST file of the upper levels, and incremental
    // checkpoints keep flushing small ones (measured: at 500k keys, one entry per key, the
    // flush spent its time in RocksDB gets).
    conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
    // With managed memory, index and filter blocks live in the shared, sharded block cache.
    // A whole-file index (hundreds of KiB once the index holds 500k keys) is larger than a
    // shard's high-priority pool, so it was evicted at once and every get read and
    // decompressed it again (measured with perf: 2.5 ms per key). Partitioned indexes and
    // filters load in metadata-block-sized pieces that stay cached.
    conf.set(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS, true);
    // Gets are random point reads over the whole index, nearly all of them block-cache
    // misses. With Snappy (Flink's default) each miss decompresses a block; uncompressed
    // blocks are read as they are (measured, 2M upserts over 500k keys: 36-40k -> 45-49k
    // rows/s, 25% less CPU). The price is disk and checkpoint bytes of the index.
    conf.set(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL,
        List.of(CompressionType.NO_COMPRESSION));
  }

  /** Adds the materializer topology to {@code env} and applies {@link #configuration}. */
  public static DataStreamSink<Void> build(StreamExecutionEnvironment env,
      MaterializerConfig config) {
    return build(env, config, UnaryOperator.identity());
  }

  /**
   * The topology with {@code beforeWriter} applied to the row stream between the source and the
   * keyed writer: a seam for tests (failure injection); the job itself uses the identity.
   */
  public static DataStreamSink<Void> build(StreamExecutionEnvironment env,
      MaterializerConfig config, UnaryOperator<DataStream<WalRow>> beforeWriter) {
    env.configure(configuration(config));
    SingleOutputStreamOperator<WalRow> source = env
        .fromSource(new WalSource(config), WatermarkStrategy.noWatermarks(), "WAL source",
            new SerializerTypeInfo<>(WalRow.class, WalRowSerializer::new))
        .uid(SOURCE_UID);
    if (config.parallelism() > 0) {
      source.setParallelism(config.parallelism());
    }
    DataStream<WalRow> rows = beforeWriter.apply(source);
    SingleOutputStreamOperator<TableDelta> deltas = keyedByRoute(rows, config)
        .transform("Delta writer", TableDeltaTypeInfo.INSTANCE, new DeltaWriterOperator(config))
        .uid(WRITER_UID);
    if (config.parallelism() > 0) {
      deltas.setParallelism(config.parallelism());
    }
    // The committer runs in its own task (thread): chained to a writer, each commit's object
    // store round trips would stall that writer's input until the commit returned. Keyed by
    // table, so each table's deltas reach one committer subtask whatever the writer, and its
    // pending deltas move with the table's key group when the committer is rescaled.
    int committers = config.committerParallelism();
    return deltas
        .keyBy(TableDelta::tableUuid, Types.STRING)
        .transform("Delta committer", Types.VOID, new DeltaCommitterOperator(config))
        .uid(COMMITTER_UID)
        .setParallelism(committers)
        .sinkTo(new DiscardingSink<>())
        .uid(SINK_UID)
        .setParallelism(committers);
  }

  /**
   * The rows keyed by routing key. A single writer receives every key whatever the partitioning,
   * so with a parallelism of one the rows are declared keyed as they are and the writer chains
   * to the source: each row then goes straight from the source's output into the writer, where
   * a shuffle serialized it into a network buffer on one thread and deserialized it on another
   * (a twentieth of the job's CPU in the materialize benchmark). The keyed state is the same
   * either way (key groups of the routing key), so a checkpoint of one topology restores into
   * the other when the parallelism changes.
   */
  private static KeyedStream<WalRow, String> keyedByRoute(DataStream<WalRow> rows,
      MaterializerConfig config) {
    KeySelector<WalRow, String> route = row -> row.routingKey;
    if (config.parallelism() == 1) {
      return DataStreamUtils.reinterpretAsKeyedStream(rows, route, Types.STRING);
    }
    return rows.keyBy(route, Types.STRING);
  }
}
