package io.verglas.bench.materialize;

import io.verglas.catalog.Catalogs;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;

/**
 * The Iceberg peer: Iceberg's own Flink sink in upsert mode (equality field {@code id}, format
 * version 2: every upsert writes an equality delete and a data row), on the same catalog and
 * storage as ours, fed the same upserts by a generator that then idles ({@link PeerJob}); it is
 * measured until the commit of the checkpoint that covers them.
 */
final class IcebergUpsertPeer {
  /** The summary property in which Iceberg's Flink committer names the checkpoint it committed. */
  static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";

  private IcebergUpsertPeer() {}

  static MaterializeBenchmark.Peer run(Catalog catalog, Map<String, String> catalogProperties,
      long upserts, long keys, int parallelism, Configuration conf) throws Exception {
    TableIdentifier id = TableIdentifier.of("bench", "iceberg_upsert");
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, "2");
    Table table = catalog.createTable(id, UpsertRows.SCHEMA, PartitionSpec.unpartitioned(), props);

    Map<String, String> loaderProps = new HashMap<>(Catalogs.forOurProcesses(catalogProperties));
    loaderProps.remove("type");
    CatalogLoader catalogLoader = CatalogLoader.custom("bench", loaderProps,
        new org.apache.hadoop.conf.Configuration(false), "org.apache.iceberg.jdbc.JdbcCatalog");

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    PeerJob job = PeerJob.of(env, upserts, keys);
    FlinkSink.forRowData(job.rows())
        .tableLoader(TableLoader.fromCatalog(catalogLoader, id))
        .equalityFieldColumns(List.of("id"))
        .upsert(true)
        .writeParallelism(parallelism)
        .append();
    MeasuredWindow.Figures figures = job.measure("iceberg-upsert-peer",
        checkpoint -> firstCommitMillis(table, checkpoint));
    long[] scan = MaterializeBenchmark.scan(table);
    int[] files = MaterializeBenchmark.liveFiles(table);
    return new MaterializeBenchmark.Peer(figures, scan[0] / 1e6, scan[1], files[0], files[1]);
  }

  /**
   * The timestamp of the table's first snapshot that the sink committed for checkpoint
   * {@code checkpointId} or a later one (its summary names the newest checkpoint it holds).
   */
  private static OptionalLong firstCommitMillis(Table table, long checkpointId) {
    table.refresh();
    OptionalLong first = OptionalLong.empty();
    for (Snapshot snapshot : table.snapshots()) {
      String committed = snapshot.summary().get(MAX_COMMITTED_CHECKPOINT_ID);
      if (committed != null && Long.parseLong(committed) >= checkpointId
          && (first.isEmpty() || snapshot.timestampMillis() < first.getAsLong())) {
        first = OptionalLong.of(snapshot.timestampMillis());
      }
    }
    return first;
  }
}
