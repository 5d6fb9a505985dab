package io.verglas.cli.local;

import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.config.Settings;
import io.verglas.events.feed.FeedBounds;
import io.verglas.materializer.MaterializerConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.BiFunction;

/**
 * The {@code local.*} keys of {@code ./verglas local --config FILE}: the stack's own
 * ({@link LocalConfig}) and its admin port's and change feed's ({@link AdminConfig}). What the
 * builders' {@code apply(Properties)} read and what the configuration reference lists; a
 * {@code local.*} key neither declares fails ({@link #checkKnown}).
 */
public final class LocalSettings {
  static final String PREFIX = "local.";

  static final Settings<LocalConfig.Builder> STACK = Settings.<LocalConfig.Builder>builder(
          "Local stack", "Keys of the properties file `./verglas local --config FILE` reads; "
              + "the command's flags of the same names override them.")
      .add("local.data-dir", "DIR", ".verglas", "Where the stack keeps everything (origin "
          + "objects, catalog, checkpoints, endpoints.json).", (b, k, v) -> b.dataDir(Path.of(v)))
      .add("local.origin", "local|azure://ACCOUNT/CONTAINER[?endpoint=URL]", "local",
          "Where objects live: the data directory, or an Azure Blob Storage container (with "
          + "AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN set), which is then the bucket.",
          (b, k, v) -> b.origin(v))
      .add("local.host", "ADDRESS", "127.0.0.1", "Address of the S3, Flight and admin ports; "
          + "Flink's own ports always stay on 127.0.0.1.", (b, k, v) -> b.host(v))
      .add("local.s3-port", "PORT", String.valueOf(LocalConfig.DEFAULT_S3_PORT),
          "S3 endpoint (and REST catalog, query) port; 0 picks a free one.",
          (b, k, v) -> b.s3Port(count(k, v)))
      .add("local.flight-port", "PORT", String.valueOf(LocalConfig.DEFAULT_FLIGHT_PORT),
          "Arrow Flight ingest port; 0 picks a free one.", (b, k, v) -> b.flightPort(count(k, v)))
      .add("local.admin-port", "PORT", String.valueOf(LocalConfig.DEFAULT_ADMIN_PORT),
          "Admin port (status page, change feed, metrics); 0 picks a free one.",
          (b, k, v) -> b.adminPort(count(k, v)))
      .add("local.nodes", "N", "1", "Cache nodes on this machine (1.." + LocalConfig.MAX_NODES
          + "); more than one form a cache cluster, S3 ports counting up from local.s3-port, "
          + "all listed in endpoints.json's s3.endpoints.", (b, k, v) -> b.nodes(count(k, v)))
      .add("local.flink-cluster", "URL", "none: embedded MiniClusters", "Run the materializer and "
          + "maintenance jobs on this Flink session cluster (its REST API's URL) instead of "
          + "MiniClusters in this process.", (b, k, v) -> b.flinkCluster(URI.create(v)))
      .add("local.bucket", "BUCKET", "warehouse", "The bucket of the local origin.",
          (b, k, v) -> b.bucket(v))
      .add("local.checkpoint-interval-ms", "MILLISECONDS", "2000", "The materializer's "
          + "checkpoint interval, and so its commit interval (at least 100).",
          (b, k, v) -> b.checkpointInterval(Duration.ofMillis(number(k, v))))
      .add("local.dram-cache-bytes", "BYTES", String.valueOf(512L << 20), "The cache node's DRAM "
          + "tier (at least 16 MiB).", (b, k, v) -> b.dramCacheBytes(number(k, v)))
      .add("local.parallelism", "N", "2", "Parallelism of the materializer's source and writer.",
          (b, k, v) -> b.parallelism(count(k, v)))
      .add("local.committer-parallelism", "N",
          String.valueOf(MaterializerConfig.COMMITTER_PARALLELISM_DEFAULT), "The materializer's "
          + "committer subtasks (its committer.parallelism): tables keyed across them, each "
          + "committed by one.", (b, k, v) -> b.committerParallelism(count(k, v)))
      .add("local.catalog-uri", "jdbc:postgresql:...|jdbc:sqlite:FILE", "SQLite in the data "
          + "directory", "The Iceberg JDBC catalog's database; PostgreSQL for many tables.",
          (b, k, v) -> b.catalogUri(v))
      .add("local.workers-jdbc-url", "jdbc:postgresql:...|none", LocalConfig.WORKERS_JDBC_URL_DEFAULT,
          "The worker scheduler's PostgreSQL database (credentials as URL parameters). When it "
          + "is reachable at start the stack runs the deployments' scheduler; else workers are "
          + "off and the stack says why. none: always off.", (b, k, v) -> b.workersJdbcUrl(v))
      .add("local.write-back-prefixes", "PREFIX[,PREFIX...]", "none", "Buffer the cache nodes' PUTs of "
          + "keys of the bucket starting with these prefixes as erasure-coded fragments (k=2, m=1, w=3 unless "
          + "the local.write-back-*-fragments keys say otherwise; in DIR/writeback, DIR/writeback-N for node N) "
          + "and acknowledge them before they reach the origin. One node keeps all k+m fragments; with "
          + "local.nodes > 1 each node holds at most one fragment of a write (w nodes at least). The "
          + "--write-back-prefix flag (repeatable, \"\" for every key) replaces them.",
          (b, k, v) -> b.writeBackPrefixes(prefixes(v)))
      .add("local.write-back-data-fragments", "K", String.valueOf(WriteBackConfig.DEFAULT_DATA_FRAGMENTS),
          "k: the data fragments a buffered write is cut into; any k of its k+m fragments rebuild it.",
          (b, k, v) -> writeBack(b, k, count(k, v), WriteBackConfig.Builder::dataFragments))
      .add("local.write-back-parity-fragments", "M", String.valueOf(WriteBackConfig.DEFAULT_PARITY_FRAGMENTS),
          "m: the parity fragments of a buffered write.",
          (b, k, v) -> writeBack(b, k, count(k, v), WriteBackConfig.Builder::parityFragments))
      .add("local.write-back-ack-fragments", "W", "k+m", "w: the fragments fsynced before a PUT is "
          + "acknowledged, k <= w <= k+m; with local.nodes > 1 on w distinct nodes (at most local.nodes).",
          (b, k, v) -> writeBack(b, k, count(k, v), WriteBackConfig.Builder::ackFragments))
      .add("local.write-back-max-bytes", "BYTES", String.valueOf(WriteBackConfig.DEFAULT_FRAGMENT_CEILING_BYTES),
          "The most disk a node's buffered fragments may take; a PUT whose fragments do not fit goes "
          + "through to the origin.",
          (b, k, v) -> writeBack(b, k, number(k, v), WriteBackConfig.Builder::fragmentCeilingBytes))
      .add("local.write-back-orphan-grace-ms", "MILLISECONDS", String.valueOf(WriteBackConfig.DEFAULT_ORPHAN_GRACE_MILLIS),
          "How old a fragment file no buffered write names must be before a node deletes it (after each "
          + "scrub); far above a PUT's staging time.",
          (b, k, v) -> writeBack(b, k, Duration.ofMillis(number(k, v)), WriteBackConfig.Builder::orphanGracePeriod))
      .add("local.workers-schema", "SCHEMA", LocalConfig.WORKERS_SCHEMA_DEFAULT, "The schema "
          + "holding the scheduler's job queue.", (b, k, v) -> b.workersSchema(v))
      .build();

  static final Settings<AdminConfig.Builder> ADMIN = Settings.<AdminConfig.Builder>builder(
          "Admin port and change feed", "Keys of the same properties file for the admin port "
              + "and the change feed it serves.")
      .add("local.admin-public", "true|false", "false", "Serve the admin port's reads (/stats, "
          + "GET /events, /maintenance, /heat) without a token.",
          (b, k, v) -> b.publicReads(flag(k, v)))
      .add("local.admin-request-timeout-ms", "MILLISECONDS",
          String.valueOf(AdminConfig.REQUEST_TIMEOUT_DEFAULT.toMillis()), "How long a connection "
          + "may take to send a whole request (head and body), or sit idle.",
          (b, k, v) -> b.requestTimeout(Duration.ofMillis(number(k, v))))
      .add("local.admin-max-connections", "N", String.valueOf(AdminConfig.MAX_CONNECTIONS_DEFAULT),
          "Open connections at most; more are closed as they arrive.",
          (b, k, v) -> b.maxConnections(count(k, v)))
      .add("local.admin-max-requests", "N", String.valueOf(AdminConfig.MAX_REQUESTS_DEFAULT),
          "Requests answered at once, follow streams aside; more get 503.",
          (b, k, v) -> b.maxRequests(count(k, v)))
      .add("local.admin-max-followers", "N", String.valueOf(AdminConfig.MAX_FOLLOWERS_DEFAULT),
          "Open follow streams of the change feed at most; more get 503.",
          (b, k, v) -> b.maxFollowers(count(k, v)))
      .add("local.events-retained", "N", String.valueOf(FeedBounds.RETAINED_EVENTS_DEFAULT),
          "Events the change feed keeps (older ones are trimmed).",
          (b, k, v) -> b.retainedEvents(count(k, v)))
      .add("local.events-retained-bytes", "BYTES", String.valueOf(FeedBounds.RETAINED_BYTES_DEFAULT),
          "Bytes of events the change feed keeps.", (b, k, v) -> b.retainedBytes(number(k, v)))
      .add("local.events-max-event-bytes", "BYTES",
          String.valueOf(FeedBounds.MAX_EVENT_BYTES_DEFAULT), "Largest event the feed accepts; "
          + "also bounds a request's body.", (b, k, v) -> b.maxEventBytes(count(k, v)))
      .build();

  private LocalSettings() {}

  /** The tables of the {@code local.*} keys, in the order the reference lists them. */
  public static List<Settings<?>> all() {
    return List.of(STACK, ADMIN);
  }

  /** Fails on a {@code local.*} key of {@code props} that no setting declares (a typo). */
  static void checkKnown(Properties props) {
    List<String> unknown = Settings.unknownKeys(props, PREFIX, STACK, ADMIN);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("Cannot read the config file: unknown key"
          + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
          + " (docs/configuration.md lists the local.* keys)");
    }
  }

  /**
   * A write-back setting of every node, named as its flag (the key without the prefix), so that
   * the flag given as well replaces it; the value parsed here, checked when the nodes' settings are.
   */
  private static <T> void writeBack(LocalConfig.Builder b, String key, T value,
      BiFunction<WriteBackConfig.Builder, T, WriteBackConfig.Builder> setter) {
    b.writeBackSetting(key.substring(PREFIX.length()), config -> setter.apply(config, value));
  }

  private static List<String> prefixes(String value) {
    return Arrays.stream(value.split(",")).map(String::trim).filter(p -> !p.isEmpty()).toList();
  }

  private static boolean flag(String key, String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(
          "Invalid " + key + ": " + value + " (true or false)");
    };
  }

  private static long number(String key, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid " + key + ": " + value + " (a number)");
    }
  }

  private static int count(String key, String value) {
    long number = number(key, value);
    if (number > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("Invalid " + key + ": " + value + " (too large)");
    }
    return (int) number;
  }
}
