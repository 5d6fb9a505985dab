package io.verglas.cli.local;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.cache.CacheNode;
import io.verglas.cache.admin.PrometheusFormat;
import io.verglas.workers.webhook.WebhookSettings;
import io.verglas.cache.awareness.AwarenessConfig;
import io.verglas.cache.catalog.CatalogProxy;
import io.verglas.cache.catalog.RestCatalogConfig;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginRequestListener;
import io.verglas.cache.writeback.WriteBackStats;
import io.verglas.catalog.Catalogs;
import io.verglas.catalog.JdbcMetadataLocations;
import io.verglas.catalog.MetadataLocations;
import io.verglas.cli.status.Readiness;
import io.verglas.cli.status.StatusReport;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.access.BearerTokens;
import io.verglas.access.ScopedTokens;
import io.verglas.events.feed.FeedAccess;
import io.verglas.ingest.IngestServer;
import io.verglas.ingest.metrics.PrometheusText;
import io.verglas.maintenance.job.MaintenanceConfig;
import io.verglas.maintenance.job.MaintenanceJob;
import io.verglas.maintenance.status.MaintenanceStatus;
import io.verglas.maintenance.status.MaintenanceStatusParser;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.MaterializerJob;
import io.verglas.query.QueryLimits;
import io.verglas.query.QueryService;
import io.verglas.query.http.QueryEndpoint;
import io.verglas.queue.QueueSettings;
import io.verglas.queue.Queues;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.table.TableIdentifiers;
import io.verglas.vector.VectorSearcher;
import io.verglas.wal.WalLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The whole Verglas stack in one process: a local-directory (or Azure) origin behind the cache
 * node's S3 endpoint, a JDBC catalog on SQLite, the change feed and admin endpoint, the Arrow Flight
 * ingest server, and the materializer and maintenance jobs on Flink MiniClusters, or, with
 * {@link LocalConfig#flinkCluster()}, on a Flink session cluster ({@link ClusterJobs}).
 *
 * <p>Start order follows the data path's dependencies (storage first, writers last) and
 * {@link #close()} stops in reverse, so the ingest server flushes its last segments while the
 * S3 endpoint is still up, and the materializer's next start re-reads whatever was not yet
 * committed. The materializer restores from its newest retained checkpoint, so its key index
 * survives restarts. Everything else the stack writes while it runs (Flink's directories, the
 * key index's RocksDB instance, upload staging) lives under the data directory's {@code tmp/},
 * which {@link DataDirectory} empties at start and deletes last at stop.
 */
public final class LocalStack implements AutoCloseable {
  public static final String CATALOG_NAME = "verglas";
  public static final String STREAM_ID = "local-0";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int HEAT_PARTITIONS = 20;
  /** Tables the status page lists at most (the first by name; it says when there are more). */
  private static final int STATUS_TABLES = 100;
  /** Queries of /v1/query run at once, and wait beyond those (more answer 503). */
  private static final int QUERY_THREADS = 2;
  private static final int QUERY_QUEUE = 32;
  private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);
  /** Flink's servers listen here whatever {@code --host} says (see {@link #flinkCluster}). */
  private static final String FLINK_HOST = "127.0.0.1";

  private final LocalConfig config;
  private final AdminConfig adminConfig;
  /** How often the stack expires the bucket's queues (SDK {@code QueueClient}), default policy. */
  static final Duration QUEUE_RETENTION_INTERVAL = Duration.ofMinutes(5);
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final List<CacheNode> cacheNodes = new ArrayList<>();
  /** The long-lived components by process name, for what each retains ({@link #components()}). */
  private final Map<String, Object> components = new LinkedHashMap<>();
  private EndpointsFile endpoints;
  private ScopedTokens scopedTokens;
  private LocalWorkers workers;
  private Supplier<String> materializerStatus = () -> "unknown";
  private Supplier<String> maintenanceStatus = () -> "unknown";

  private LocalStack(LocalConfig config, AdminConfig adminConfig) {
    this.config = config;
    this.adminConfig = adminConfig;
  }

  public static LocalStack start(LocalConfig config) {
    return start(config, AdminConfig.defaults());
  }

  /** Starts the stack with the admin endpoint's and change feed's settings. */
  public static LocalStack start(LocalConfig config, AdminConfig adminConfig) {
    LocalStack stack = new LocalStack(config, adminConfig);
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
    scopedTokens = credentials.scopedTokens(Clock.systemUTC());

    // The feed and the admin endpoint come first: the cache node follows the feed from its
    // start. What the admin pages show of parts started later is read when a page is asked for.
    ChangeFeed feed = new ChangeFeed(config.eventsFile(), adminConfig.feedBounds());
    started.push(feed);
    // the jobs publish with the events token, which reads too; operators read with the admin one
    FeedAccess access = FeedAccess.tokens(credentials.eventsToken(), credentials.adminToken(),
        adminConfig.publicReads()).withScopedTokens(scopedTokens);
    AtomicReference<CacheNode> cacheNode = new AtomicReference<>();
    AtomicReference<Catalog> catalogRef = new AtomicReference<>();
    AtomicReference<CatalogProxy> restCatalog = new AtomicReference<>();
    AtomicReference<IngestServer> ingestServer = new AtomicReference<>();
    AtomicReference<S3Client> jobsClient = new AtomicReference<>();
    AtomicReference<LocalWorkers> workersRef = new AtomicReference<>();
    StatusReport status = new StatusReport(this::healthJson, () -> ingestMetrics(ingestServer.get()),
        () -> statsJson(cacheNode.get()), catalogRef::get, STATUS_TABLES);
    Readiness readiness = LocalReadiness.of(jobsClient::get, config.bucket(), catalogRef::get);
    started.push(readiness);
    // webhooks answer 503 until the workers start (last), then are served or say why not
    AdminWebhooks webhooks = new AdminWebhooks(
        WebhookSettings.builder().adminToken(credentials.adminToken()).build());
    AdminServer admin = new AdminServer(config.host(), config.adminPort(), adminConfig, access,
        feed, new AdminPages(this::healthJson, () -> statsJson(cacheNode.get()),
            table -> maintenanceJson(catalogRef.get(), table),
            table -> heatJson(cacheNode.get(), table), status::json, readiness::evaluate,
            () -> metricsText(cacheNode.get(), ingestServer.get())), webhooks);
    started.push(admin);
    URI eventsUri = URI.create(admin.uri() + "/events");

    AtomicReference<Catalog> jobsCatalog = new AtomicReference<>();
    VectorIndexing vectorIndexing = new VectorIndexing(jobsCatalog::get, tmp("vector-index"));
    started.push(vectorIndexing);
    QueryEndpoint queries = new QueryEndpoint(new QueryService(catalogRef::get, QueryLimits.defaults(),
        VectorSearcher.builder().build()),
        new BearerTokens(credentials.catalogToken(), scopedTokens), QUERY_THREADS, QUERY_QUEUE);
    started.push(queries);
    LocalCluster cluster = LocalCluster.plan(config, credentials);
    Origin origin = openOrigin();
    List<CacheNode> nodes = new ArrayList<>();
    // set with the catalog, from its properties: it connects to the catalog's database as the catalog does
    AtomicReference<MetadataLocations> metadataLocations = new AtomicReference<>();
    for (int i = 0; i < cluster.nodes(); i++) {
      boolean first = i == 0;
      AtomicReference<CatalogProxy> proxy = first ? restCatalog : new AtomicReference<>();
      CacheNode.Builder node = CacheNode.builder()
          .host(config.host())
          .port(cluster.s3Port(i))
          .region(config.region())
          .credentials(credentials.accessKey(), credentials.secretKey())
          // the stack's own jobs: their reads (WAL segments, compaction) are not the clients' heat
          .backgroundCredentials(credentials.jobAccessKey(), credentials.jobSecretKey())
          // worker runs reach the queues with their token's session credentials, nothing else
          .scopedTokens(scopedTokens)
          .origin(origin)
          .dramCapacityBytes(config.dramCacheBytes())
          .spoolDirectory(tmp(first ? "s3-spool" : "s3-spool-" + (i + 1)))
          .awareness(AwarenessConfig.builder()
              .feedUri(eventsUri)
              .feedToken(credentials.adminToken())
              .stateDirectory(config.dataDir().resolve(first ? "cache-watcher" : "cache-watcher-" + (i + 1)))
              .listener(event -> {
                invalidate(proxy.get(), event);
                if (first) {
                  vectorIndexing.onEvent(event);   // builds off the feed's thread
                  LocalWorkers w = workersRef.get();
                  if (w != null) {
                    w.onEvent(event);              // refreshes off the feed's thread
                  }
                }
              })
              .catalog(catalogRef::get)   // polled for other engines' commits once it exists
              // a poll reads every table's metadata location in one query: idle tables cost no load
              .metadataLocations(metadataLocations::get)
              .build())
          // /catalog answers 503 until the catalog exists: its FileIO goes through this node
          .catalog(RestCatalogConfig.builder(catalogRef::get, credentials.catalogToken()).build());
      if (config.originRequests() != OriginRequestListener.NONE) {
        node.originRequests(config.originRequests());
      }
      if (config.writeBack(i) != null) {
        node.writeBack(config.writeBack(i));   // its own fragments and journal; in a cluster one fragment per node
      }
      // every node answers /v1/query; the query service reads tables through the catalog's
      // FileIO (the first node), with the catalog's token
      node.service(queries);
      CacheNode running = cluster.join(node, i).build().start();
      started.push(running);
      proxy.set(running.catalogProxy());
      nodes.add(running);
    }
    CacheNode cache = nodes.get(0);
    cacheNodes.addAll(nodes);
    components.put("cache_node", List.copyOf(nodes));
    cacheNode.set(cache);
    ObjectStoreEndpoint s3 = new ObjectStoreEndpoint(cache.endpoint(), config.region(),
        credentials.accessKey(), credentials.secretKey(), config.bucket());
    ObjectStoreEndpoint jobsS3 = new ObjectStoreEndpoint(cache.endpoint(), config.region(),
        credentials.jobAccessKey(), credentials.jobSecretKey(), config.bucket());
    S3Client probes = jobsS3.newClient();
    started.push(probes);
    jobsClient.set(probes);
    Queues queues = new Queues(probes, config.bucket(), QueueSettings.defaults());
    started.push(queues);
    started.push(queues.sweepRetention(QUEUE_RETENTION_INTERVAL));

    Map<String, String> catalogProperties =
        Catalogs.jdbc(config.catalogUri(), s3.warehouse(), s3.s3FileIoProperties());
    Catalog catalog = loadCatalog(catalogProperties, "catalog");
    catalogRef.set(catalog);
    metadataLocations.set(new JdbcMetadataLocations(CATALOG_NAME, catalogProperties));

    IngestServer ingest = startIngest(catalog, jobsS3, credentials);
    started.push(ingest);
    components.put("ingest", ingest);
    ingestServer.set(ingest);

    FeedCredential feedCredential =
        new FeedCredential(eventsUri, credentials.eventsToken(), config.dataDir().resolve("outbox"));
    Map<String, String> jobsCatalogProperties =
        Catalogs.jdbc(config.catalogUri(), jobsS3.warehouse(), jobsS3.s3FileIoProperties());
    jobsCatalog.set(loadCatalog(jobsCatalogProperties, "vector-index"));
    if (config.flinkCluster() != null) {
      submitToCluster(jobsS3, jobsCatalogProperties, feedCredential, feed.lastSequence() + 1);
    } else {
      MiniClusterJob materializer = startMaterializer(jobsS3, jobsCatalogProperties, feedCredential);
      started.push(materializer);
      components.put("materializer", materializer);
      materializerStatus = () -> jobStatus(materializer);
      MiniClusterJob maintenance =
          startMaintenance(jobsCatalogProperties, feedCredential, feed.lastSequence() + 1);
      started.push(maintenance);
      components.put("maintenance", maintenance);
      maintenanceStatus = () -> jobStatus(maintenance);
    }

    endpoints = new EndpointsFile(cache.endpoint(), config.region(), credentials.accessKey(),
        credentials.secretKey(), config.bucket(), ingest.location(), credentials.flightToken(),
        CATALOG_NAME, cache.catalogUri(), catalogProperties,
        admin.uri(), eventsUri, credentials.adminToken(), credentials.catalogToken(),
        nodes.stream().map(CacheNode::endpoint).toList(), null);
    // last: the workers' runs use every part above
    LocalWorkers localWorkers =
        LocalWorkers.start(config, endpoints, scopedTokens, webhooks,
            () -> feed.lastSequence() + 1);
    started.push(localWorkers);
    workersRef.set(localWorkers);
    workers = localWorkers;
    endpoints = endpoints.withWorkers(localWorkers.database().orElse(null));
    endpoints.write(config.endpointsFile());
  }

  /** The origin {@code --origin} names, closed after the cache node; its bucket is created if missing. */
  private Origin openOrigin() {
    Origin origin = config.origin().open(config.originDir(), System.getenv());
    started.push(origin);
    try {
      origin.ensureBucket(config.bucket());
    } catch (IllegalStateException e) {
      throw new IllegalStateException("Cannot use the origin " + config.origin() + ": "
          + e.getCause().getMessage(), e.getCause());
    }
    return origin;
  }

  /**
   * How the jobs reach the change feed: its URI, the events token (publishes and reads) and
   * the directory of their durable outboxes, one subdirectory per job. The outbox is kept
   * across restarts: what a job could not deliver before a stop it sends after the next start.
   */
  private record FeedCredential(URI uri, String token, Path outboxes) {}

  /** A commit seen on the feed makes /catalog load the table afresh (another writer's commit). */
  private static void invalidate(CatalogProxy proxy, FeedEvent event) {
    if (proxy != null && event instanceof CatalogEvent commit) {
      proxy.invalidate(TableIdentifiers.identifier(commit.table()));
    }
  }

  /** The cache node's heat of {@code table} (its 20 hottest partitions). */
  private static String heatJson(CacheNode cache, String table) {
    if (cache == null) {
      throw new IllegalStateException("Cannot show heat: the cache node is starting");
    }
    try {
      return JSON.writeValueAsString(
          cache.heat(TableIdentifiers.toString(TableIdentifiers.identifier(table)), HEAT_PARTITIONS));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot show heat of " + table + ": " + e.getMessage(), e);
    }
  }

  /** The cache node's, write-back's (all nodes') and the ingest server's metrics, as one Prometheus text page. */
  private String metricsText(CacheNode cache, IngestServer ingest) {
    if (cache == null || ingest == null) {
      throw new IllegalStateException("Cannot show metrics: the stack is starting");
    }
    return PrometheusFormat.render(cache.stats(), null, writeBackStats(cacheNodes))
        + PrometheusText.render(ingest.metrics().snapshot());
  }

  private WriteBackStats writeBackStats(List<CacheNode> nodes) {
    return WriteBackTotals.of(nodes, config.writeBack(0) != null);
  }

  private static Object ingestMetrics(IngestServer ingest) {
    if (ingest == null) {
      throw new IllegalStateException("Cannot show ingest counters: the ingest server is starting");
    }
    return ingest.metrics().snapshot();
  }

  /**
   * The first cache node's statistics, with write-back's figures of all nodes ({@code
   * writeBack}) when on, and in a cluster each node's membership report and statistics.
   */
  private String statsJson(CacheNode cache) {
    if (cache == null) {
      throw new IllegalStateException("Cannot show statistics: the cache node is starting");
    }
    WriteBackStats writeBack = writeBackStats(cacheNodes);
    if (cacheNodes.size() < 2 && writeBack == null) {
      return cache.stats().toJson();
    }
    try {
      ObjectNode stats = (ObjectNode) JSON.readTree(cache.stats().toJson());
      if (writeBack != null) {
        stats.set("writeBack", JSON.valueToTree(writeBack));
      }
      if (cacheNodes.size() > 1) {
        ArrayNode members = stats.putObject("cluster").putArray("nodes");
        for (CacheNode node : cacheNodes) {
          ObjectNode member = members.addObject().put("s3Endpoint", node.endpoint().toString());
          member.set("report", JSON.valueToTree(node.cluster().report()));
          member.set("stats", JSON.readTree(node.stats().toJson()));
          if (writeBack != null) {
            member.set("writeBack", JSON.valueToTree(node.writeBack().stats()));
          }
        }
      }
      return JSON.writeValueAsString(stats);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot show statistics: " + e.getOriginalMessage(), e);
    }
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
          .scopedTokens(scopedTokens)
          .build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the Flight ingest server on port "
          + config.flightPort() + ": " + e.getMessage(), e);
    }
  }

  private MiniClusterJob startMaterializer(ObjectStoreEndpoint s3,
      Map<String, String> catalogProperties, FeedCredential feed) {
    // the committer shares the writers' slots: the wider of the two sets the slots needed
    Map<String, String> flink = flinkCluster("materializer",
        Math.max(config.parallelism(), config.committerParallelism()));
    flink.put("state.backend.type", "rocksdb");
    // The key index's working copy; what survives a restart is its checkpoint.
    flink.put("state.backend.rocksdb.localdir", tmp("materializer").resolve("rocksdb").toString());
    flink.put("execution.checkpointing.dir", config.checkpointDir().toUri().toString());
    flink.put("execution.checkpointing.incremental", "true");
    flink.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    flink.put("execution.checkpointing.num-retained", "2");
    Optional<Path> restore = LatestCheckpoint.in(config.checkpointDir());
    restore.ifPresent(path -> {
      LOG.info("Materializer resumes from checkpoint {}", path);
      flink.put("execution.state-recovery.path", path.toUri().toString());
      // CLAIM: the new job owns the restored checkpoint and deletes it once subsumed
      flink.put("execution.state-recovery.claim-mode", "CLAIM");
    });
    MaterializerConfig job = MaterializerConfig.builder()
        .catalog(CATALOG_NAME, staged(catalogProperties, "materializer"))
        .objectStore(s3)
        .walPrefix(WalLayout.DEFAULT_PREFIX)
        .eventsUri(feed.uri())
        .eventsToken(feed.token())
        .eventsOutboxDir(feed.outboxes().resolve("materializer"))
        .checkpointInterval(config.checkpointInterval())
        .parallelism(config.parallelism())
        .committerParallelism(config.committerParallelism())
        .build();
    return MiniClusterJob.start(MaterializerJob.JOB_NAME, Configuration.fromMap(flink),
        config.parallelism(), env -> MaterializerJob.build(env, job));
  }

  /** Both jobs on the session cluster of {@code --flink-cluster}, cancelled at stop. */
  private void submitToCluster(ObjectStoreEndpoint s3, Map<String, String> catalogProperties,
      FeedCredential feed, long feedFrom) {
    ClusterJobs jobs = ClusterJobs.submit(config.flinkCluster(), new ClusterJobs.Wiring(
        CATALOG_NAME, staged(catalogProperties, "materializer"), s3, feed.uri(), feed.token(),
        feed.outboxes()), config, feedFrom, System.out);
    started.push(jobs);
    materializerStatus = () -> jobs.status(jobs.materializerId());
    maintenanceStatus = () -> jobs.status(jobs.maintenanceId());
  }

  /**
   * The maintenance loop on its own small MiniCluster, following the change feed from its end
   * (what it missed while the stack was down, the sweep finds); its state is not checkpointed.
   */
  private MiniClusterJob startMaintenance(Map<String, String> catalogProperties,
      FeedCredential feed, long feedFrom) {
    MaintenanceConfig job = MaintenanceConfig.builder()
        .catalogName(CATALOG_NAME)
        .catalogProperties(staged(catalogProperties, "maintenance"))
        .feedUri(feed.uri())
        .feedToken(feed.token())
        .feedOutboxDir(feed.outboxes().resolve("maintenance"))
        .feedFrom(feedFrom)
        .parallelism(1)
        .build();
    return MiniClusterJob.start(MaintenanceJob.JOB_NAME,
        Configuration.fromMap(flinkCluster("maintenance", 1)), 1,
        env -> MaintenanceJob.build(env, job));
  }

  /**
   * What both MiniClusters share. Flink's servers (the REST endpoint, which serves nothing here
   * ({@link EmptyRestEndpointFactory}), and the blob server; the RPC and data ports too, should
   * a setting make them listen) have no authentication, and nothing outside this process uses
   * them: they stay on loopback even when {@code --host} opens the stack's own ports to the
   * network. A cluster's files (its working, I/O, blob and upload directories) go to
   * {@code tmp/<name>}.
   */
  private Map<String, String> flinkCluster(String name, int slots) {
    Path tmp = tmp(name);
    Map<String, String> flink = new LinkedHashMap<>();
    flink.put("taskmanager.numberOfTaskSlots", Integer.toString(slots));
    flink.put("rest.bind-address", FLINK_HOST);
    flink.put("rest.address", FLINK_HOST);
    flink.put("rest.bind-port", "0");
    flink.put("jobmanager.bind-host", FLINK_HOST);      // the blob server, and remote RPC
    flink.put("jobmanager.rpc.address", FLINK_HOST);
    flink.put("taskmanager.bind-host", FLINK_HOST);     // remote RPC and the shuffle's data port
    flink.put("taskmanager.host", FLINK_HOST);
    flink.put("io.tmp.dirs", tmp.resolve("flink").toString());
    flink.put("web.tmpdir", tmp.resolve("web").toString());
    return flink;
  }

  /** The stack's catalog for its part {@code name} ({@link #staged}), closed with the stack. */
  private Catalog loadCatalog(Map<String, String> catalogProperties, String name) {
    Catalog catalog = Catalogs.load(CATALOG_NAME, staged(catalogProperties, name));
    if (catalog instanceof AutoCloseable closeable) {
      started.push(closeable);
    }
    return catalog;
  }

  /** Catalog properties whose S3 uploads stage their files under {@code tmp/<name>}. */
  private Map<String, String> staged(Map<String, String> catalogProperties, String name) {
    Map<String, String> properties = new LinkedHashMap<>(catalogProperties);
    properties.put("s3.staging-dir", tmp(name).resolve("s3-staging").toString());
    return properties;
  }

  /** {@code tmp/<name>}, created: what it is handed to may expect an existing directory. */
  private Path tmp(String name) {
    Path dir = config.tmpDir().resolve(name);
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the directory " + dir + ": " + e, e);
    }
  }

  /** {@code table} in the TableIdentifiers form ({@code demo.`orders.v2`}): never split at dots. */
  private static String maintenanceJson(Catalog catalog, String table) {
    if (catalog == null) {
      throw new IllegalStateException("Cannot show maintenance status: the catalog is starting");
    }
    TableIdentifier name = TableIdentifiers.identifier(table);
    return MaintenanceStatusParser.toJson(TableIdentifiers.toString(name),
        MaintenanceStatus.of(catalog.loadTable(name)));
  }

  private String healthJson() {
    return "{\"status\":\"ok\",\"materializer\":\"" + materializerStatus.get()
        + "\",\"maintenance\":\"" + maintenanceStatus.get() + "\"}";
  }

  private static String jobStatus(MiniClusterJob job) {
    try {
      return job.client().getJobStatus().get().toString();
    } catch (Exception e) {
      return "unreachable: " + e.getMessage();
    }
  }

  /** Takes the data directory (closed last, deleting tmp/) and creates what lives in it. */
  private void createDirectories() {
    started.push(DataDirectory.open(config.dataDir(), config.tmpDir()));
    try {
      if (config.origin() instanceof OriginSpec.Local) {
        Files.createDirectories(config.originDir().resolve(config.bucket()));
      }
      Files.createDirectories(config.checkpointDir());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the data directory " + config.dataDir()
          + ": " + e, e);
    }
  }

  public EndpointsFile endpoints() {
    return endpoints;
  }

  /** Mints and verifies this stack's scoped tokens (its key is in the credentials file). */
  ScopedTokens scopedTokens() {
    return scopedTokens;
  }

  public LocalConfig config() {
    return config;
  }

  /**
   * The long-lived components that would be processes of their own in a deployment, by name
   * ({@code ingest}, {@code cache_node}, and with MiniClusters {@code materializer} and
   * {@code maintenance}): the roots from which a measurement finds what each one retains.
   */
  public Map<String, Object> components() {
    return Collections.unmodifiableMap(components);
  }

  /** Whether the stack runs workers: "on: ..." or "off: why". */
  public String workersStatus() {
    return workers.status();
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
