package io.verglas.cli.local;

import io.verglas.access.ScopedTokens;
import io.verglas.cli.foreground.Foreground;
import io.verglas.materializer.MaterializerConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Callable;
import io.verglas.cli.cachenode.WriteBackFlags;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code verglas local}: the whole stack in this process until Ctrl-C or SIGTERM. */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Run the whole stack in one process: S3 endpoint with block cache over a local "
        + "directory origin (or an Azure Blob Storage container, --origin), JDBC catalog on SQLite, Arrow Flight ingest, materializer on a Flink "
        + "MiniCluster, change feed. Writes DIR/endpoints.json when ready.")
public final class LocalCommand implements Callable<Integer> {
  @Option(names = "--data-dir", description = "Data directory (default: .verglas)")
  Path dataDir;

  @Option(names = "--config", description = "Properties file with local.* keys; flags override it")
  Path configFile;

  @Option(names = "--origin", description = "Where objects live: local (default, DIR/origin) or "
      + "azure://ACCOUNT/CONTAINER[?endpoint=URL] with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN "
      + "set; the container is the bucket")
  String origin;

  @Option(names = "--host", description = "Address of the S3, Flight and admin ports (default: "
      + "127.0.0.1); Flink's own ports always stay on 127.0.0.1")
  String host;

  @Option(names = "--s3-port", description = "S3 endpoint port (default: 9100)")
  Integer s3Port;

  @Option(names = "--flight-port", description = "Arrow Flight port (default: 8815)")
  Integer flightPort;

  @Option(names = "--admin-port", description = "Admin/events port (default: 9101)")
  Integer adminPort;

  @Option(names = "--nodes", description = "Cache nodes (default: 1); more than one form a cache "
      + "cluster whose S3 ports count up from --s3-port")
  Integer nodes;

  @Option(names = "--checkpoint-interval-ms", description = "Materializer checkpoint interval (default: 2000)")
  Long checkpointMillis;

  @Option(names = "--committer-parallelism", paramLabel = "N", description = "The "
      + "materializer's committer subtasks, tables keyed across them (default: "
      + MaterializerConfig.COMMITTER_PARALLELISM_DEFAULT + ")")
  Integer committerParallelism;

  @Option(names = "--catalog-uri", description = "The Iceberg JDBC catalog's database, e.g. "
      + "jdbc:postgresql://127.0.0.1:5432/verglas?user=verglas (default: SQLite in the data directory)")
  String catalogUri;

  @Option(names = "--flink-cluster", paramLabel = "URL", description = "Submit the materializer "
      + "and maintenance jobs to this Flink session cluster (its REST API, e.g. the URL "
      + "`verglas flink-cluster` prints) instead of running each on an embedded MiniCluster")
  URI flinkCluster;

  @Option(names = "--workers-jdbc-url", paramLabel = "URL", description = "The worker "
      + "scheduler's PostgreSQL database, used when reachable (default: "
      + LocalConfig.WORKERS_JDBC_URL_DEFAULT + "); none: no workers")
  String workersJdbcUrl;

  /** Write-back: fragments and journal in DIR/writeback (node N from 2: DIR/writeback-N). */
  @Mixin WriteBackFlags writeBack;

  @Option(names = "--admin-public", description = "Serve the admin port's reads (/stats, GET "
      + "/events, /maintenance, /heat) without a token (default: the admin.token of endpoints.json)")
  boolean adminPublic;

  @Option(names = "--rotate-scoped-token-key", description = "Before starting, replace the key "
      + "that signs the workers' scoped tokens; tokens signed with the old key stay valid until "
      + "they expire (the last " + ScopedTokens.MAX_PREVIOUS_KEYS + " keys are kept)")
  boolean rotateScopedTokenKey;

  @Option(names = "--revoke-scoped-tokens", description = "Before starting, replace the key that "
      + "signs the workers' scoped tokens and drop every earlier key: each scoped token handed out "
      + "before is refused from then on")
  boolean revokeScopedTokens;

  @Override
  public Integer call() throws Exception {
    Properties props = configFile();
    LocalSettings.checkKnown(props);
    LocalConfig config = config(props);
    rotateKeys(config);
    System.out.println("Starting Verglas in " + config.dataDir() + " ...");
    AdminConfig admin = adminConfig(props);
    LocalStack stack = LocalStack.start(config, admin);
    Foreground foreground = Foreground.stopOnExit("Stopping Verglas ...", stack);
    EndpointsFile e = stack.endpoints();
    System.out.println("Verglas is up.");
    System.out.println("  S3 endpoint   " + e.s3Endpoint() + "  (bucket " + e.bucket() + ", region " + e.region() + ")");
    System.out.println("  Origin        " + config.origin());
    System.out.println("  Flight        " + e.flightUri());
    System.out.println("  REST catalog  " + e.catalogRestUri()
        + "  (Authorization: Bearer <catalog.token of endpoints.json>)");
    System.out.println("  JDBC catalog  " + e.catalogProperties().get("uri"));
    System.out.println("  Admin         " + e.adminUri() + "/health  " + e.adminUri() + "/stats"
        + (admin.publicReads() ? "  (reads public)"
            : "  (reads need Authorization: Bearer <admin.token of endpoints.json>)"));
    System.out.println("  Change feed   " + e.eventsUri() + "?follow=true");
    System.out.println("  Flink jobs    " + (config.flinkCluster() == null ? "embedded MiniClusters"
        : "on the session cluster " + config.flinkCluster()));
    System.out.println("  Workers       " + stack.workersStatus());
    if (config.writeBack(0) != null) {
      System.out.println("  Write-back    " + WriteBackFlags.describe(config.writeBack(0))
          + (config.nodes() > 1 ? ", and writeback-N for node N" : ""));
    }
    System.out.println("  Credentials and all properties: " + config.endpointsFile());
    System.out.println("Press Ctrl-C to stop.");
    foreground.await();
    return 0;
  }

  void rotateKeys(LocalConfig config) throws IOException {
    if (rotateScopedTokenKey && revokeScopedTokens) {
      throw new IllegalArgumentException("Cannot start: --rotate-scoped-token-key "
          + "and --revoke-scoped-tokens exclude each other (revoking rotates too)");
    }
    if (rotateScopedTokenKey || revokeScopedTokens) {
      Files.createDirectories(config.dataDir());
      LocalCredentials rotated = LocalCredentials.rotateScopedTokenKey(config.credentialsFile(),
          rotateScopedTokenKey);
      System.out.println(revokeScopedTokens ? "Scoped token key replaced; every earlier scoped "
          + "token is revoked." : "Scoped token key rotated; tokens of the "
          + rotated.previousScopedTokenKeys().size() + " previous key(s) are accepted until they expire.");
    }
  }

  private Properties configFile() throws IOException {
    Properties props = new Properties();
    if (configFile != null) {
      try (Reader reader = Files.newBufferedReader(configFile)) {
        props.load(reader);
      }
    }
    return props;
  }

  private AdminConfig adminConfig(Properties props) {
    AdminConfig.Builder builder = AdminConfig.builder().apply(props);
    if (adminPublic) { builder.publicReads(true); }
    return builder.build();
  }

  LocalConfig config(Properties props) {
    LocalConfig.Builder builder = LocalConfig.builder().apply(props);
    if (dataDir != null) { builder.dataDir(dataDir); }
    if (origin != null) { builder.origin(origin); }
    if (host != null) { builder.host(host); }
    if (s3Port != null) { builder.s3Port(s3Port); }
    if (nodes != null) { builder.nodes(nodes); }
    if (flightPort != null) { builder.flightPort(flightPort); }
    if (adminPort != null) { builder.adminPort(adminPort); }
    if (checkpointMillis != null) { builder.checkpointInterval(Duration.ofMillis(checkpointMillis)); }
    if (catalogUri != null) { builder.catalogUri(catalogUri); }
    if (committerParallelism != null) { builder.committerParallelism(committerParallelism); }
    if (flinkCluster != null) { builder.flinkCluster(flinkCluster); }
    if (workersJdbcUrl != null) { builder.workersJdbcUrl(workersJdbcUrl); }
    if (!writeBack.prefixes().isEmpty()) { builder.writeBackPrefixes(writeBack.prefixes()); }
    writeBack.settings().forEach(builder::writeBackSetting);
    return builder.build();
  }
}
