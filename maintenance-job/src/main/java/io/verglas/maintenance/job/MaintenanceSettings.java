package io.verglas.maintenance.job;

import io.verglas.config.Settings;
import io.verglas.events.publish.DurableOutbox;
import io.verglas.job.JobArguments;
import java.net.URI;
import java.nio.file.Path;

/**
 * The maintenance job's command-line arguments ({@code --key=value} or {@code --key value}):
 * what {@link MaintenanceConfig#fromArgs} parses and what the configuration reference
 * ({@code docs/configuration.md}) lists.
 */
public final class MaintenanceSettings {
  private static final Settings<MaintenanceConfig.Builder> SETTINGS =
      Settings.<MaintenanceConfig.Builder>builder("Maintenance job", "Arguments of the "
              + "maintenance job (`MaintenanceJob`), as `--key=value` or `--key value`, on "
              + "`flink run` or `./verglas submit maintenance -- ARGS`. Durations: milliseconds, "
              + "a number with ms/s/m/h, or ISO-8601.")
          .add("catalog.", "PROPERTY=VALUE", "none", "Iceberg catalog properties (type, uri, "
              + "warehouse, io-impl, ...).",
              (b, k, v) -> b.catalogProperty(k.substring("catalog.".length()), v))
          .add("catalog-name", "NAME", MaintenanceConfig.CATALOG_NAME_DEFAULT, "The catalog's name.",
              (b, k, v) -> b.catalogName(v))
          .add("feed.uri", "URI", "required", "The change feed: GET to follow, POST to publish.",
              (b, k, v) -> b.feedUri(URI.create(v)))
          .add("feed.token", "TOKEN", "none", "Bearer token for both (the feed's publish "
              + "credential, which also grants reads); never logged.", (b, k, v) -> b.feedToken(v))
          .add("feed.outbox-dir", "DIR", "maintenance-<catalog hash> in "
              + "<java.io.tmpdir>/verglas-outbox", "Durable outbox of the events this job "
              + "publishes: forced to disk here, sent by a background thread, kept while the feed "
              + "is slow or down. On a cluster set a directory on persistent local disk (events of "
              + "an outbox on a lost disk are not sent; the catalog has their commits).",
              (b, k, v) -> b.feedOutboxDir(Path.of(v)))
          .add("feed.outbox-max-bytes", "BYTES", String.valueOf(DurableOutbox.MAX_BYTES_DEFAULT),
              "Bound of the outbox on disk; when full, the oldest undelivered events are dropped "
              + "with an ERROR.", (b, k, v) -> b.feedOutboxMaxBytes(JobArguments.number(k, v)))
          .add("feed.from", "SEQUENCE", "1", "First sequence of the feed to read when no "
              + "checkpoint says otherwise.", (b, k, v) -> b.feedFrom(JobArguments.number(k, v)))
          .add("feed.poll-interval", "DURATION",
              MaintenanceConfig.POLL_INTERVAL_DEFAULT.toMillis() + "ms",
              "How often the feed is asked for new events.",
              (b, k, v) -> b.pollInterval(JobArguments.duration(k, v)))
          .add("sweep-interval", "DURATION", MaintenanceConfig.SWEEP_INTERVAL_DEFAULT.toHours() + "h",
              "The full sweep over all tables; 0 turns it off.",
              (b, k, v) -> b.sweepInterval(JobArguments.duration(k, v)))
          .add("rewrite-pause", "DURATION", MaintenanceConfig.REWRITE_PAUSE_DEFAULT.toSeconds() + "s",
              "Least time between two work items of one table.",
              (b, k, v) -> b.rewritePause(JobArguments.duration(k, v)))
          .add("parallelism", "N", String.valueOf(MaintenanceConfig.PARALLELISM_DEFAULT),
              "Tables maintained at once.", (b, k, v) -> b.parallelism(JobArguments.count(k, v)))
          .add("checkpoint-interval", "DURATION",
              MaintenanceConfig.CHECKPOINT_INTERVAL_DEFAULT.toSeconds() + "s",
              "How often the job checkpoints its feed position and trigger state.",
              (b, k, v) -> b.checkpointInterval(JobArguments.duration(k, v)))
          .build();

  private MaintenanceSettings() {}

  public static Settings<?> settings() {
    return SETTINGS;
  }

  static MaintenanceConfig parse(String... args) {
    MaintenanceConfig.Builder builder = MaintenanceConfig.builder();
    JobArguments.apply(SETTINGS, builder, args);
    return builder.build();
  }
}
