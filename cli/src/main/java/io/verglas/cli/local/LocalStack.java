package io.verglas.cli.local;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.catalog.Catalogs;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.ingest.IngestServer;
import io.verglas.maintenance.job.MaintenanceConfig;
import io.verglas.maintenance.job.MaintenanceJob;
import io.verglas.maintenance.status.MaintenanceStatus;
import io.verglas.maintenance.status.MaintenanceStatusParser;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.MaterializerJob;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.table.TableIdentifiers;
import io.verglas.wal.WalLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole Verglas stack in one process: a local-directory origin behind the cache node's S3
 * endpoint, a JDBC catalog on SQLite, the change feed and admin endpoint, the Arrow Flight
 * ingest server, and the materializer and maintenance jobs on Flink MiniClusters.
 *
 * <p>Start order follows the data path's dependencies (storage first, writers last) and
 * {@link #close()} stops in reverse, so the ingest server flushes its last segments while the
 * S3 endpoint is still up, and the materializer's next start re-reads whatever was not yet
 * committed. The materializer restores from its newest retained checkpoint, so its key index
 * survives restarts.
 */
public final class LocalStack implements AutoCloseable {
  public static final String CATALOG_NAME = "verglas";
  public static final String STREAM_ID = "local-0";
  private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);

  private final LocalConfig config;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private EndpointsFile endpoints;
  private JobClient materializer;
  private JobClient maintenance;

  private LocalStack(LocalConfig config) {
    this.config = config;
  }

  public static LocalStack start(LocalConfig config) {
    LocalStack stack = new LocalStack(config);
    try {
      stack.startAll();
      return stack;
    } catch (RuntimeException | Error e) {
      stack.close();
      throw e;
    }
  }

  private void startAll() {
    createDirectories();
    LocalCredentials credentials = LocalCredentials.loadOrCreate(config.credentialsFile());

    CacheNode cache = CacheNode.builder()
        .host(config.host())
        .port(config.s3Port())
        .region(config.region())
        .credentials(credentials.accessKey(), credentials.secretKey())
        .origin(new LocalDirectoryOrigin(config.originDir()))
        .dramCapacityBytes(config.dramCacheBytes())
        .build()
        .start();
    started.push(cache);
    ObjectStoreEndpoint s3 = new ObjectStoreEndpoint(cache.endpoint(), config.region(),
        credentials.accessKey(), credentials.secretKey(), config.bucket());

    Map<String, String> catalogProperties =
        Catalogs.sqlite(config.catalogDb().toString(), s3.warehouse(), s3.s3FileIoProperties());
    Catalog catalog = Catalogs.load(CATALOG_NAME, catalogProperties);
    if (catalog instanceof AutoCloseable closeable) {
      started.push(closeable);
    }

    ChangeFeed feed = new ChangeFeed(config.eventsFile(), 100_000);
    started.push(feed);
    AdminServer admin = new AdminServer(config.host(), config.adminPort(), feed,
        this::healthJson, () -> cache.stats().toJson(), table -> maintenanceJson(catalog, table));
    started.push(admin);
    URI eventsUri = URI.create(admin.uri() + "/events");

    IngestServer ingest = startIngest(catalog, s3, credentials);
    started.push(ingest);

    materializer = startMaterializer(s3, catalogProperties, eventsUri);
    started.push(this::stopMaterializer);
    maintenance = startMaintenance(catalogProperties, eventsUri, feed.lastSequence() + 1);
    started.push(this::stopMaintenance);

    endpoints = new EndpointsFile(cache.endpoint(), config.region(), credentials.accessKey(),
        credentials.secretKey(), config.bucket(), ingest.location(), credentials.flightToken(),
        CATALOG_NAME, URI.create(cache.endpoint() + "/catalog"), catalogProperties,
        admin.uri(), eventsUri);
    endpoints.write(config.endpointsFile());
  }

  private IngestServer startIngest(Catalog catalog, ObjectStoreEndpoint s3,
      LocalCredentials credentials) {
    try {
      return IngestServer.builder()
          .host(config.host())
          .port(config.flightPort())
          .catalog(catalog)
          .objectStore(s3)
          .walLayout(WalLayout.defaults())
          .streamId(STREAM_ID)
          .token(credentials.flightToken())
          .build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the Flight ingest server on port "
          + config.flightPort() + ": " + e.getMessage(), e);
    }
  }

  private JobClient startMaterializer(ObjectStoreEndpoint s3, Map<String, String> catalogProperties,
      URI eventsUri) {
    Map<String, String> flink = new LinkedHashMap<>();
    flink.put("state.backend.type", "rocksdb");
    flink.put("execution.checkpointing.dir", config.checkpointDir().toUri().toString());
    flink.put("execution.checkpointing.incremental", "true");
    flink.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    flink.put("execution.checkpointing.num-retained", "2");
    flink.put("taskmanager.numberOfTaskSlots", Integer.toString(config.parallelism()));
    Optional<Path> restore = LatestCheckpoint.in(config.checkpointDir());
    restore.ifPresent(path -> {
      LOG.info("Materializer resumes from checkpoint {}", path);
      flink.put("execution.state-recovery.path", path.toUri().toString());
      // CLAIM: the new job owns the restored checkpoint and deletes it once subsumed
      flink.put("execution.state-recovery.claim-mode", "CLAIM");
    });
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(
        config.parallelism(), Configuration.fromMap(flink));
    MaterializerConfig job = MaterializerConfig.builder()
        .catalog(CATALOG_NAME, catalogProperties)
        .objectStore(s3)
        .walPrefix(WalLayout.DEFAULT_PREFIX)
        .eventsUri(eventsUri)
        .checkpointInterval(config.checkpointInterval())
        .parallelism(config.parallelism())
        .build();
    MaterializerJob.build(env, job);
    try {
      return env.executeAsync(MaterializerJob.JOB_NAME);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start the materializer job: " + e.getMessage(), e);
    }
  }

  /**
   * The maintenance loop on its own small MiniCluster, following the change feed from its end
   * (what it missed while the stack was down, the sweep finds); its state is not checkpointed.
   */
  private JobClient startMaintenance(Map<String, String> catalogProperties, URI eventsUri,
      long feedFrom) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1,
        Configuration.fromMap(Map.of("taskmanager.numberOfTaskSlots", "1")));
    MaintenanceConfig job = MaintenanceConfig.builder()
        .catalogName(CATALOG_NAME)
        .catalogProperties(catalogProperties)
        .feedUri(eventsUri)
        .feedFrom(feedFrom)
        .parallelism(1)
        .build();
    MaintenanceJob.build(env, job);
    try {
      return env.executeAsync(MaintenanceJob.JOB_NAME);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start the maintenance job: " + e.getMessage(), e);
    }
  }

  private void stopMaintenance() throws Exception {
    if (maintenance != null) {
      maintenance.cancel().get();
    }
  }

  /** {@code table} in the TableIdentifiers form ({@code demo.`orders.v2`}): never split at dots. */
  private static String maintenanceJson(Catalog catalog, String table) {
    TableIdentifier name = TableIdentifiers.identifier(table);
    return MaintenanceStatusParser.toJson(TableIdentifiers.toString(name),
        MaintenanceStatus.of(catalog.loadTable(name)));
  }

  private void stopMaterializer() throws Exception {
    if (materializer != null) {
      materializer.cancel().get();
    }
  }

  private String healthJson() {
    return "{\"status\":\"ok\",\"materializer\":\"" + jobStatus(materializer)
        + "\",\"maintenance\":\"" + jobStatus(maintenance) + "\"}";
  }

  private static String jobStatus(JobClient job) {
    if (job == null) {
      return "unknown";
    }
    try {
      return job.getJobStatus().get().toString();
    } catch (Exception e) {
      return "unreachable: " + e.getMessage();
    }
  }

  private void createDirectories() {
    try {
      Files.createDirectories(config.dataDir());
      Files.createDirectories(config.originDir().resolve(config.bucket()));
      Files.createDirectories(config.checkpointDir());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the data directory " + config.dataDir(), e);
    }
  }

  public EndpointsFile endpoints() {
    return endpoints;
  }

  public LocalConfig config() {
    return config;
  }

  /** Stops every component in reverse start order; safe to call twice. */
  @Override
  public synchronized void close() {
    while (!started.isEmpty()) {
      AutoCloseable component = started.pop();
      try {
        component.close();
      } catch (Exception e) {
        LOG.warn("Error while stopping {}: {}", component, e.toString());
      }
    }
  }
}
