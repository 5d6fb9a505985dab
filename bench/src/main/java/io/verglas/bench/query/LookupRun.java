package io.verglas.bench.query;

import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.maintenance.UpsertTable;
import io.verglas.bench.stack.BenchStorage;
import io.verglas.query.QueryLimits;
import io.verglas.query.QueryRequestParser;
import io.verglas.query.QueryResult;
import io.verglas.query.QueryService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The lookup part of {@code query}: point lookups by primary key through the query service
 * against Iceberg's generic reader with the same key filter, on the same table, through the same
 * warm cache node.
 *
 * <p>The table: V3, {@code id long} primary key plus three columns, bloom filters on {@code id}
 * (as the issue has the materializer write them), written with Iceberg's generic writer and
 * deletion vectors ({@link UpsertTable}: {@value #COMMITS} commits of random upserts, each a data
 * file of new versions plus a DV per older file holding replaced versions), not by the
 * materializer job itself. Keys arrive in random order, so file and row-group bounds prune
 * nothing: the bloom filters do.
 *
 * <p>Each query, on either side, loads the table from the catalog (its metadata read through the
 * cache node) and reads the current snapshot: ours is {@code QueryService.run} of a lookup
 * request (in process, JSON rows out, the HTTP hop left out on both sides), the peer is
 * {@code IcebergGenerics.read(table).where(equal("id", key))}. Both answers are compared for
 * every key. One untimed pass per side warms the cache node and the JIT; then the timed pass
 * alternates the sides key by key, so that load from other processes hits both alike.
 */
final class LookupRun {
  static final int COMMITS = 10;
  private static final TableIdentifier NAME = TableIdentifier.of("bench", "keyed");

  private LookupRun() {}

  static void run(BenchmarkReport.Builder report, boolean quick) throws Exception {
    int rows = quick ? 100_000 : 1_000_000;
    int lookups = quick ? 200 : 1_000;
    try (BenchStorage storage = new BenchStorage(2L << 30)) {
      long start = System.nanoTime();
      Table table = create(storage, rows);
      report.environment("lookup_table", "V3, id long primary key + 3 columns, bloom filter on id, "
          + COMMITS + " commits of random upserts with deletion vectors (Iceberg generic writer + "
          + "BaseDVFileWriter, not the materializer job)")
          .environment("lookup_table_key_space", rows)
          .environment("lookup_table_live_rows", count(table))
          .environment("lookup_table_data_files", table.currentSnapshot().summary().get("total-data-files"))
          .environment("lookup_table_write_seconds", round((System.nanoTime() - start) / 1e9))
          .environment("lookup_keys", lookups + " random keys in [0, " + (rows + rows / 10)
              + "), some absent; each query loads the table from the catalog on both sides");
      QueryService service = new QueryService(storage::catalog, QueryLimits.defaults(), null);
      Random random = new Random(20261202L);
      long[] keys = new long[lookups];
      for (int i = 0; i < lookups; i++) {
        keys[i] = (long) (random.nextDouble() * (rows + rows / 10));
      }
      for (long key : keys) {
        check(key, ours(service, key), peer(storage, key));
      }
      long[] oursNanos = new long[lookups];
      long[] peerNanos = new long[lookups];
      long[] loadNanos = new long[lookups];
      for (int i = 0; i < lookups; i++) {
        long t0 = System.nanoTime();
        ours(service, keys[i]);
        long t1 = System.nanoTime();
        peer(storage, keys[i]);
        long t2 = System.nanoTime();
        storage.catalog().loadTable(NAME);
        oursNanos[i] = t1 - t0;
        peerNanos[i] = t2 - t1;
        loadNanos[i] = System.nanoTime() - t2;
      }
      // what both sides spend before reading: the catalog's row and the metadata file
      report.environment("lookup_table_load_p50_ms", percentile(loadNanos, 0.50));
      double oursP50 = percentile(oursNanos, 0.50);
      double peerP50 = percentile(peerNanos, 0.50);
      report.metric("lookup_p50_ms", oursP50).metric("lookup_p99_ms", percentile(oursNanos, 0.99))
          .peer("iceberg_generics_lookup_p50_ms", peerP50)
          .peer("iceberg_generics_lookup_p99_ms", percentile(peerNanos, 0.99))
          .ratio("lookup_speedup_vs_iceberg_generics", peerP50, oursP50);
    }
  }

  private static Table create(BenchStorage storage, int rows) {
    if (storage.catalog() instanceof SupportsNamespaces namespaces) {
      namespaces.createNamespace(Namespace.of("bench"));
    }
    Schema schema = new Schema(UpsertTable.SCHEMA.columns(), Set.of(1));
    Table table = storage.catalog().createTable(NAME, schema, PartitionSpec.unpartitioned(), Map.of(
        TableProperties.FORMAT_VERSION, "3",
        TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "id", "true"));
    UpsertTable upserts = new UpsertTable(table);
    for (int c = 0; c < COMMITS; c++) {
      upserts.commit(rows * 16 / 100, rows);
    }
    table.refresh();
    return table;
  }

  private static List<Map<String, Object>> ours(QueryService service, long key) {
    QueryResult result = service.run(QueryRequestParser.parse(("{\"kind\":\"lookup\",\"table\":\"bench.keyed\","
        + "\"keys\":[" + key + "]}").getBytes(StandardCharsets.UTF_8)));
    return result.rows();
  }

  private static List<Record> peer(BenchStorage storage, long key) {
    Table table = storage.catalog().loadTable(NAME);
    List<Record> found = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).where(Expressions.equal("id", key)).build()) {
      records.forEach(found::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  private static void check(long key, List<Map<String, Object>> ours, List<Record> peer) {
    boolean same = ours.size() == peer.size();
    for (int i = 0; same && i < ours.size(); i++) {
      same = ours.get(i).get("value").equals(peer.get(i).getField("value"))
          && ours.get(i).get("payload").equals(peer.get(i).getField("payload"));
    }
    if (!same) {
      throw new IllegalStateException("Cannot measure lookups: key " + key + " answered " + ours
          + " by the query service and " + peer + " by the generic reader");
    }
  }

  private static long count(Table table) {
    long live = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).select("id").build()) {
      for (Record ignored : records) {
        live++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return live;
  }

  private static double percentile(long[] nanos, double p) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return round(sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))] / 1e6);
  }

  private static double round(double value) {
    return Math.round(value * 1000.0) / 1000.0;
  }
}
