package io.verglas.materializer.testing;

import io.verglas.catalog.Catalogs;
import io.verglas.events.CatalogEvent;
import io.verglas.events.EventPublisher;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.wal.WalLayout;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One test world: an in-process S3 server, a SQLite JDBC catalog whose warehouse is on it, a WAL
 * under {@code _wal/}, and a materializer config pointing at all of it. Events the job publishes
 * are collected per fixture.
 *
 * <p>A JUnit extension: {@code @RegisterExtension final MaterializerFixture world = new
 * MaterializerFixture();} gives each test a new world in its own temporary directory, closed
 * and deleted after the test.
 */
public final class MaterializerFixture implements BeforeEachCallback, AfterEachCallback {
  public static final String BUCKET = "verglas";
  private static final Map<String, ConcurrentLinkedQueue<CatalogEvent>> EVENTS =
      new ConcurrentHashMap<>();

  private TestingS3 s3;
  private S3Client client;
  private Map<String, String> catalogProperties;
  private Catalog catalog;
  private Path dir;
  private String eventsKey;

  /** A MiniCluster for a test class ({@code @RegisterExtension static final}). */
  public static MiniClusterExtension miniCluster(int taskManagers, int slotsPerTaskManager) {
    return miniCluster(taskManagers, slotsPerTaskManager, new Configuration());
  }

  /** {@link #miniCluster(int, int)} with {@code configuration} (a metrics reporter, say). */
  public static MiniClusterExtension miniCluster(int taskManagers, int slotsPerTaskManager,
      Configuration configuration) {
    return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
        .setConfiguration(configuration)
        .setNumberTaskManagers(taskManagers)
        .setNumberSlotsPerTaskManager(slotsPerTaskManager)
        .build());
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    start(Files.createTempDirectory("verglas-world-"));
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      close();
    } finally {
      deleteRecursively(dir);
    }
  }

  private void start(Path dir) throws Exception {
    this.dir = dir;
    this.s3 = TestingS3.start(BUCKET);
    this.client = s3.endpoint().newClient();
    this.catalogProperties = Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        "s3://" + BUCKET + "/warehouse", s3.endpoint().s3FileIoProperties());
    this.catalog = Catalogs.load("verglas", catalogProperties);
    this.eventsKey = dir.toString();
    EVENTS.put(eventsKey, new ConcurrentLinkedQueue<>());
  }

  /** This world's own directory (its catalog database, checkpoints, ...). */
  public Path dir() {
    return dir;
  }

  /** Where this world's jobs checkpoint. */
  public Path checkpoints() {
    return dir.resolve("checkpoints");
  }

  public Catalog catalog() {
    return catalog;
  }

  /** The catalog's properties (a SQLite JDBC catalog on the in-process S3 server). */
  public Map<String, String> catalogProperties() {
    return catalogProperties;
  }

  public TestingS3 s3() {
    return s3;
  }

  public TestingWal wal(String streamId) {
    return new TestingWal(this::put, WalLayout.defaults(), streamId);
  }

  public void put(String key, byte[] bytes) {
    client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(bytes));
  }

  /** The WAL segments still stored (a stream's high-water mark object is not a segment). */
  public List<String> walKeys() {
    return s3.list("_wal/").stream()
        .filter(key -> io.verglas.wal.WalLayout.defaults().parse(key).isPresent())
        .toList();
  }

  /**
   * The WAL segments still stored whose rows are not all committed to their table. Deleting a
   * committed segment is best effort (a failed DELETE leaves it until a restarted job reads it
   * again), so "drained" for a running job means this list is empty, not {@link #walKeys}.
   */
  public List<String> uncommittedWalKeys() {
    List<String> pending = new java.util.ArrayList<>();
    for (String key : walKeys()) {
      byte[] bytes;
      try {
        bytes = client.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
      } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
        continue; // deleted meanwhile
      }
      io.verglas.wal.WalSegmentHeader header =
          io.verglas.wal.WalSegmentCodec.decode(bytes).header();
      org.apache.iceberg.Table table = catalog.loadTable(
          org.apache.iceberg.catalog.TableIdentifier.of(header.tableName().toArray(String[]::new)));
      io.verglas.materializer.progress.WalMark mark =
          io.verglas.materializer.progress.WalSummary.committed(table)
              .getOrDefault(header.streamId(), io.verglas.materializer.progress.WalMark.NONE);
      if (!mark.coversSegment(header.sequence(), header.recordCount())) {
        pending.add(key);
      }
    }
    return pending;
  }

  /** A config for this world with two writers; {@code checkpointDir} may be null. */
  public MaterializerConfig.Builder config(Path checkpointDir) {
    return config(checkpointDir, 2);
  }

  /** A config for this world; {@code checkpointDir} may be null. */
  public MaterializerConfig.Builder config(Path checkpointDir, int parallelism) {
    String key = eventsKey;
    MaterializerConfig.Builder builder = MaterializerConfig.builder()
        .catalogProperties(catalogProperties)
        .objectStore(s3.endpoint())
        .checkpointInterval(Duration.ofMillis(500))
        .discoveryInterval(Duration.ofMillis(200))
        .parallelism(parallelism)
        .eventPublisher(() -> collecting(key));
    if (checkpointDir != null) {
      builder.checkpointDir(checkpointDir.toUri().toString());
    }
    return builder;
  }

  private static EventPublisher collecting(String key) {
    return event -> EVENTS.get(key).add(event);
  }

  public List<CatalogEvent> events() {
    return List.copyOf(EVENTS.get(eventsKey));
  }

  /** Waits until {@code condition} holds, failing with {@code description} after {@code timeout}. */
  public static void await(String description, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout + " waiting for " + description);
      }
      Thread.sleep(100);
    }
  }

  public static <T> T await(String description, Duration timeout, Supplier<T> value,
      java.util.function.Predicate<T> done) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = value.get();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout + " waiting for " + description
            + "; last value: " + last);
      }
      Thread.sleep(100);
      last = value.get();
    }
    return last;
  }

  private void close() throws Exception {
    EVENTS.remove(eventsKey);
    client.close();
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
    s3.close();
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
