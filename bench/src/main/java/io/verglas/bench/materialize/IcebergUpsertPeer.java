package io.verglas.bench.materialize;

import io.verglas.bench.ProcessCpu;
import io.verglas.bench.ThreadCpu;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;

/**
 * The Iceberg peer: Iceberg's own Flink sink in upsert mode (equality field {@code id}, format
 * version 2: every upsert writes an equality delete and a data row), on the same catalog and
 * storage as ours, fed the same upserts by a bounded generator; the final checkpoint commits.
 */
final class IcebergUpsertPeer {
  private IcebergUpsertPeer() {}

  static MaterializeBenchmark.Peer run(Catalog catalog, Map<String, String> catalogProperties,
      long upserts, long keys, int parallelism, Configuration conf) throws Exception {
    TableIdentifier id = TableIdentifier.of("bench", "iceberg_upsert");
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, "2");
    Table table = catalog.createTable(id, UpsertRows.SCHEMA, PartitionSpec.unpartitioned(), props);

    Map<String, String> loaderProps = new HashMap<>(catalogProperties);
    loaderProps.remove("type");
    CatalogLoader catalogLoader = CatalogLoader.custom("bench", loaderProps,
        new org.apache.hadoop.conf.Configuration(false), "org.apache.iceberg.jdbc.JdbcCatalog");
    RowType rowType = FlinkSchemaUtil.convert(UpsertRows.SCHEMA);

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    DataStream<RowData> rows = env.fromSequence(0, upserts - 1)
        .map(new FlinkRows(keys))
        .returns(InternalTypeInfo.of(rowType));
    FlinkSink.forRowData(rows)
        .tableLoader(TableLoader.fromCatalog(catalogLoader, id))
        .equalityFieldColumns(List.of("id"))
        .upsert(true)
        .writeParallelism(parallelism)
        .append();
    long start = System.nanoTime();
    ProcessCpu cpu = ProcessCpu.start();
    ThreadCpu threadCpu = ThreadCpu.sampling(MaterializeBenchmark.THREAD_CPU_SAMPLING);
    env.execute("iceberg-upsert-peer");
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = cpu.cpuSeconds();
    double jitSeconds = cpu.jitSeconds();
    Map<String, Double> cpuByThread = threadCpu.topGroups(14);
    threadCpu.close();
    long[] scan = MaterializeBenchmark.scan(table);
    int[] files = MaterializeBenchmark.liveFiles(table);
    return new MaterializeBenchmark.Peer(seconds, cpuSeconds, jitSeconds, cpuByThread,
        scan[0] / 1e6, scan[1], files[0], files[1]);
  }
}
