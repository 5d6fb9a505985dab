package io.verglas.bench.query;

import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.stack.BenchStorage;
import io.verglas.query.QueryLimits;
import io.verglas.query.QueryRequestParser;
import io.verglas.query.QueryResult;
import io.verglas.query.QueryService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * The traverse part of {@code query}: 3-hop breadth-first traversals through the query service,
 * each from one random seed, over an edge table ({@code src long, dst long}, random edges, ten
 * per vertex on average, one Parquet file written with Iceberg's generic writer) through a warm
 * cache node. Each hop reads the edges of its frontier with the generic reader
 * ({@code src in (...)}); no peer. One untimed pass warms the node and the JIT.
 */
final class TraverseRun {
  static final int DEPTH = 3;
  static final int DEGREE = 10;
  private static final Schema EDGES = new Schema(
      Types.NestedField.required(1, "src", Types.LongType.get()),
      Types.NestedField.required(2, "dst", Types.LongType.get()));

  private TraverseRun() {}

  static void run(BenchmarkReport.Builder report, boolean quick) throws Exception {
    int edges = quick ? 100_000 : 1_000_000;
    int seeds = quick ? 20 : 100;
    long vertices = edges / DEGREE;
    try (BenchStorage storage = new BenchStorage(1L << 30)) {
      if (storage.catalog() instanceof SupportsNamespaces namespaces) {
        namespaces.createNamespace(Namespace.of("bench"));
      }
      Table table = storage.catalog().createTable(TableIdentifier.of("bench", "edges"), EDGES,
          PartitionSpec.unpartitioned());
      table.newAppend().appendFile(write(table, edges, vertices)).commit();
      report.environment("traverse_table", edges + " random edges over " + vertices + " vertices, one file")
          .environment("traverse_queries", seeds + " traversals of depth " + DEPTH + ", one random seed each");
      QueryService service = new QueryService(storage::catalog, QueryLimits.defaults(), null);
      Random random = new Random(20261203L);
      long[] starts = random.longs(seeds, 0, vertices).toArray();
      for (long seed : starts) {
        traverse(service, seed);
      }
      long[] nanos = new long[seeds];
      long reached = 0;
      long total = 0;
      for (int i = 0; i < seeds; i++) {
        long t0 = System.nanoTime();
        reached += traverse(service, starts[i]);
        nanos[i] = System.nanoTime() - t0;
        total += nanos[i];
      }
      Arrays.sort(nanos);
      report.metric("traverse_p50_ms", Math.round(nanos[seeds / 2] / 1e3) / 1e3)
          .metric("traverse_edges_per_second", Math.round(reached / (total / 1e9)))
          .environment("traverse_edges_per_query", reached / seeds);
    }
  }

  /** Runs one traversal; returns the edges it answered. */
  private static int traverse(QueryService service, long seed) {
    QueryResult result = service.run(QueryRequestParser.parse(("{\"kind\":\"traverse\",\"table\":\"bench.edges\","
        + "\"seeds\":[" + seed + "],\"depth\":" + DEPTH + "}").getBytes(StandardCharsets.UTF_8)));
    return ((List<?>) result.extra().get("edges")).size();
  }

  private static DataFile write(Table table, int edges, long vertices) throws IOException {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
        .dataSchema(table.schema()).build().newDataWriter(files.newOutputFile(), table.spec(), null);
    Random random = new Random(20261204L);
    try (DataWriter<Record> closing = writer) {
      for (int i = 0; i < edges; i++) {
        GenericRecord edge = GenericRecord.create(EDGES);
        edge.setField("src", (long) (random.nextDouble() * vertices));
        edge.setField("dst", (long) (random.nextDouble() * vertices));
        closing.write(edge);
      }
    }
    return writer.toDataFile();
  }
}
