package io.verglas.bench.materialize;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.FlinkSinkBuilder;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;

/**
 * The Paimon peer: a Paimon 1.3 primary-key table ({@code id}, fixed buckets = parallelism) with
 * deletion vectors, written by Paimon's Flink sink from the same upserts, measured until the
 * commit of the checkpoint that covers them ({@link PeerJob}). Its warehouse is a local
 * directory (Paimon's S3 file IO is a separate plugin jar).
 */
final class PaimonPeer {
  private PaimonPeer() {}

  /** Runs the job; the result's scan figures are Paimon's own reader (not comparable to Iceberg's). */
  static MaterializeBenchmark.Peer run(Path warehouse, long upserts, long keys, int parallelism,
      Configuration conf) throws Exception {
    Options options = new Options();
    options.set("warehouse", warehouse.toUri().toString());
    Identifier id = Identifier.create("bench", "paimon_upsert");
    Table table;
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      catalog.createDatabase("bench", true);
      Schema schema = Schema.newBuilder()
          .column("id", DataTypes.BIGINT().notNull())
          .column("account_id", DataTypes.BIGINT())
          .column("name", DataTypes.STRING())
          .column("category", DataTypes.STRING())
          .column("note", DataTypes.STRING())
          .column("price", DataTypes.DOUBLE())
          .column("quantity", DataTypes.DOUBLE())
          .column("created_ms", DataTypes.BIGINT())
          .column("updated_ms", DataTypes.BIGINT())
          .column("score", DataTypes.INT())
          .primaryKey("id")
          .option("bucket", Integer.toString(parallelism))
          .option("deletion-vectors.enabled", "true")
          .build();
      catalog.createTable(id, schema, false);
      table = catalog.getTable(id);
    }

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    PeerJob job = PeerJob.of(env, upserts, keys);
    new FlinkSinkBuilder(table).forRowData(job.rows()).parallelism(parallelism).build();
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      Table written = catalog.getTable(id);
      MeasuredWindow.Figures figures = job.measure("paimon-peer",
          checkpoint -> firstCommitMillis(written, checkpoint));
      long scanStart = System.nanoTime();
      ReadBuilder read = written.newReadBuilder();
      List<Split> splits = read.newScan().plan().splits();
      AtomicLong count = new AtomicLong();
      try (RecordReader<InternalRow> reader = read.newRead().createReader(splits)) {
        reader.forEachRemaining(row -> count.incrementAndGet());
      }
      return new MaterializeBenchmark.Peer(figures, (System.nanoTime() - scanStart) / 1e6,
          count.get(), -1, -1);
    }
  }

  /**
   * The time of the table's first snapshot committed for checkpoint {@code checkpointId} or a
   * later one (the Flink sink commits each checkpoint under its id; a compaction's snapshot
   * follows under the same id).
   */
  private static OptionalLong firstCommitMillis(Table table, long checkpointId) {
    Optional<Snapshot> latest = table.latestSnapshot();
    if (latest.isEmpty() || latest.get().commitIdentifier() < checkpointId) {
      return OptionalLong.empty();
    }
    Snapshot first = latest.get();
    while (first.id() > 1) {
      Snapshot previous = table.snapshot(first.id() - 1);
      if (previous.commitIdentifier() < checkpointId) {
        break;
      }
      first = previous;
    }
    return OptionalLong.of(first.timeMillis());
  }
}
