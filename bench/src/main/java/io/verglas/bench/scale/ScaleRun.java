package io.verglas.bench.scale;

import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.catalog.Catalogs;
import io.verglas.cli.local.EndpointsFile;
import io.verglas.cli.local.LocalConfig;
import io.verglas.cli.local.LocalStack;
import io.verglas.table.CreateTableRequest;
import io.verglas.protocol.PutAck;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.VerglasClient;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.Catalog;

/**
 * One run of the scale benchmark: the whole local stack ({@link LocalStack}: cache node as the
 * S3 endpoint over a local-directory origin, ingest, materializer, maintenance) on a PostgreSQL
 * catalog in a database of its own, {@code tables.count()} tables created over Flight, then
 * batches pushed round-robin to the first {@code tables.active()} ({@code push} at the full
 * rate: the same number in every run), then the figures. The catalog's queries and the origin's
 * requests are counted from the push phase's start until every pushed batch is visible; the heap
 * is read once every batch is committed and two more checkpoints have passed, after collections,
 * with the stack still running: in all, and per long-lived component ({@link RetainedHeap}). The
 * database, the data directory and the driver swap are undone at the end.
 */
final class ScaleRun {
  static final String SERVER = System.getProperty("verglas.bench.pg-url",
      "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  /** Concurrent create-table calls: enough to keep the catalog pool and the object store busy. */
  private static final int CREATE_THREADS = 16;
  private static final int BATCH_ROWS = 20;
  /** Pushes per second over all active tables. */
  private static final int PUSH_RATE = 20;
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);
  /**
   * Creation has settled once no origin request named an idle table for this long: longer than
   * the cache node's catalog poll (every 10 s after the last one ends), which finds new tables.
   */
  private static final Duration SETTLED_AFTER = Duration.ofSeconds(30);
  private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(5);
  /** Whether the heap walk also names the owner paths of what grew ({@code heap_paths_*}). */
  private static final boolean TRACE_PATHS = Boolean.getBoolean("verglas.bench.scale.heap-paths");

  private ScaleRun() {}

  /** What one run measured. */
  record Figures(int tables, int active, double createTablesPerS, double settleS,
      long heapStartBytes, long heapAfterPushBytes,
      Map<String, RetainedHeap.Footprint> componentHeap, long checkpointBytes,
      ScaleCounts.Figures catalogQueries, ScaleCounts.Figures originRequests,
      double[] freshnessMs, int pushes, double pushS) {}

  static Figures run(ScaleTables tables, Duration push) throws Exception {
    // a database of its own, not a schema: Iceberg's JdbcCatalog looks for its tables in every
    // schema (apache/iceberg#11862), so a leftover schema of another run would keep it from
    // creating its own
    String database = "vg_scale_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    sql("CREATE DATABASE " + database);
    ScaleCounts catalogCounts = new ScaleCounts(tables);
    ScaleCounts originCounts = new ScaleCounts(tables);
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-scale-");
        CountingCatalogDriver driver = CountingCatalogDriver.install(catalogCounts)) {
      LocalConfig config = LocalConfig.builder().dataDir(dir.path()).s3Port(0).flightPort(0)
          .adminPort(0).checkpointInterval(Duration.ofSeconds(2)).dramCacheBytes(128L << 20)
          .parallelism(1).catalogUri(inDatabase(database))
          .originRequests((bucket, key) -> originCounts.count(tables.classifyPath(key)))
          .build();
      try (LocalStack stack = LocalStack.start(config)) {
        return measure(stack, tables, push, catalogCounts, originCounts);
      }
    } finally {
      sql("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  private static Figures measure(LocalStack stack, ScaleTables tables, Duration push,
      ScaleCounts catalogCounts, ScaleCounts originCounts) throws Exception {
    EndpointsFile endpoints = stack.endpoints();
    long heapStart = heapAfterGc();
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri())
        .token(endpoints.flightToken()).build()) {
      double createRate = create(client, tables.count());
      double settle = settle(originCounts);
      System.err.printf("scale: %d tables created, %.0f/s, settled in %.0f s%n", tables.count(),
          createRate, settle);
      Schema schema = client.tableSchema(ScaleTables.identifier(0));
      Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
      Freshness freshness = new Freshness();
      catalogCounts.enable(true);
      originCounts.enable(true);
      double pushS = pushFor(client, schema, tables.active(), pushes(push), freshness);
      drain(catalog, tables.active(), freshness);
      catalogCounts.enable(false);
      originCounts.enable(false);
      double[] millis = freshness.millis(catalog, tables.active());
      if (catalog instanceof AutoCloseable closeable) {
        closeable.close();
      }
      // the same phase in every run: all batches committed, then two more checkpoints
      Thread.sleep(stack.config().checkpointInterval().multipliedBy(2).toMillis());
      long heap = heapAfterGc();
      Map<String, RetainedHeap.Footprint> components = componentHeap(stack);
      return new Figures(tables.count(), tables.active(), createRate, settle, heapStart, heap,
          components, directoryBytes(stack.config().checkpointDir()), catalogCounts.figures(),
          originCounts.figures(), millis, freshness.size(), pushS);
    }
  }

  /** Creates tables 0..count-1 over Flight, {@value #CREATE_THREADS} calls at once; per second. */
  private static double create(VerglasClient client, int count) throws Exception {
    AtomicInteger next = new AtomicInteger();
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(CREATE_THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < CREATE_THREADS; t++) {
        workers.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
            client.createTable(new CreateTableRequest(List.of(ScaleTables.NAMESPACE),
                ScaleTables.name(i), ScaleTables.SCHEMA, ScaleTables.PRIMARY_KEY,
                ScaleTables.SPEC, Map.of()));
          }
          return null;
        }));
      }
      for (Future<?> worker : workers) {
        worker.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return count / ((System.nanoTime() - start) / 1e9);
  }

  /**
   * Waits until the work a creation leaves behind has ended: the cache node walks each new
   * table's metadata (read from the origin: the create wrote it through without caching it) on
   * one low-priority thread once its catalog poll finds them, which on a loaded machine lags the
   * creates. Tables being walked are not idle yet; the window counts from when no origin request
   * has named an idle table for {@link #SETTLED_AFTER} (at most {@link #SETTLE_TIMEOUT}: then
   * the window counts the rest). Seconds waited.
   */
  private static double settle(ScaleCounts origin) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + SETTLE_TIMEOUT.toNanos();
    while (origin.quietNanos() < SETTLED_AFTER.toNanos() && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** Batches a run pushes: {@value #PUSH_RATE} a second of {@code push}, the same in every run. */
  static int pushes(Duration push) {
    return (int) (push.toSeconds() * PUSH_RATE);
  }

  /**
   * What each long-lived component retains ({@link RetainedHeap}), by its process name: each
   * walked on its own, so what two share counts in both.
   */
  private static Map<String, RetainedHeap.Footprint> componentHeap(LocalStack stack) {
    Map<String, RetainedHeap.Footprint> heap = new LinkedHashMap<>();
    stack.components().forEach((name, root) -> heap.put(name,
        TRACE_PATHS ? RetainedHeap.withPaths(root) : RetainedHeap.of(root)));
    return heap;
  }

  /**
   * Pushes {@code count} batches of upserts, each to the next active table, at most
   * {@value #PUSH_RATE} a second (a loaded machine takes longer, but every run pushes as many);
   * the seconds it took.
   */
  private static double pushFor(VerglasClient client, Schema schema, int active, int count,
      Freshness freshness) throws InterruptedException {
    long start = System.nanoTime();
    long next = start;
    for (int i = 0; i < count; i++) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      next += 1_000_000_000L / PUSH_RATE;
      int table = i % active;
      try (RowBatchBuilder rows = RowBatchBuilder.forSchema(schema, client.allocator())) {
        for (int r = 0; r < BATCH_ROWS; r++) {
          rows.add(Map.of("id", (long) ((i / active * BATCH_ROWS + r) % 1_000),
              "payload", "push-" + i + "-" + r));
        }
        try (VectorSchemaRoot batch = rows.build()) {
          List<PutAck> acks = client.push(ScaleTables.identifier(table), List.of(batch));
          long acked = System.currentTimeMillis();
          acks.forEach(ack -> freshness.add(new Freshness.Sent(table, ack, acked)));
        }
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** Waits until every pushed batch is visible in its table. */
  private static void drain(Catalog catalog, int active, Freshness freshness)
      throws InterruptedException {
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    for (int index = 0; index < active; index++) {
      while (!freshness.covered(catalog, index)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Cannot finish the run: table " + ScaleTables.name(index)
              + " did not show its pushed rows within " + DRAIN_TIMEOUT);
        }
        Thread.sleep(500);
      }
    }
  }

  /** Used heap after full collections (a few, until it stops falling). */
  static long heapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(200);
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (now >= used) {
        return Math.min(now, used);
      }
      used = now;
    }
    return used;
  }

  private static long directoryBytes(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
    }
  }

  /** {@link #SERVER} with its database replaced by {@code database}. */
  static String inDatabase(String database) {
    int query = SERVER.indexOf('?');
    int slash = SERVER.lastIndexOf('/', query < 0 ? SERVER.length() : query);
    return SERVER.substring(0, slash + 1) + database + (query < 0 ? "" : SERVER.substring(query));
  }

  private static void sql(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(SERVER); Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
