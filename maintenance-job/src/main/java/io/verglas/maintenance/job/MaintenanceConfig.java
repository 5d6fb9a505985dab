package io.verglas.maintenance.job;

import io.verglas.catalog.Catalogs;
import io.verglas.events.EventPublisher;
import io.verglas.events.HttpEventPublisher;
import io.verglas.events.publish.DurableOutbox;
import io.verglas.job.JobArguments;
import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;

/**
 * Everything the maintenance job needs. Immutable and serializable (operators build their
 * clients on the task managers).
 *
 * <p>Command-line form ({@link #fromArgs}), each {@code --key=value} or {@code --key value}:
 * <pre>
 *   --catalog.&lt;property&gt;=...   Iceberg catalog properties (type, uri, warehouse, io-impl, ...)
 *   --catalog-name=verglas
 *   --feed.uri=http://.../events    the change feed (required): GET to follow, POST to publish
 *   --feed.token=...                bearer token for both (the feed's publish credential, which
 *                                   also grants reads); never logged
 *   --feed.outbox-dir=DIR           durable outbox of the events this job publishes: forced to
 *                                   disk here, sent by a background thread, kept while the feed
 *                                   is slow or down. Default: a directory maintenance-&lt;catalog
 *                                   hash&gt; in &lt;java.io.tmpdir&gt;/verglas-outbox on the task
 *                                   manager; on a cluster set a directory on persistent local
 *                                   disk (events of an outbox on a lost disk are not sent; the
 *                                   catalog has their commits)
 *   --feed.outbox-max-bytes=268435456  bound of the outbox on disk; when full, the oldest
 *                                   undelivered events are dropped with an ERROR
 *   --feed.from=1                   first sequence when no checkpoint says otherwise
 *   --feed.poll-interval=500ms
 *   --sweep-interval=1h             the full sweep over all tables; 0 turns it off
 *   --rewrite-pause=10s             least time between two work items of one table
 *   --parallelism=2                 tables maintained at once
 *   --checkpoint-interval=10s
 * </pre>
 * Durations: milliseconds, a number with ms/s/m/h, or ISO-8601 ({@link JobArguments#duration}).
 */
public final class MaintenanceConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String CATALOG_NAME_DEFAULT = "verglas";
  public static final Duration POLL_INTERVAL_DEFAULT = Duration.ofMillis(500);
  public static final Duration SWEEP_INTERVAL_DEFAULT = Duration.ofHours(1);
  public static final Duration REWRITE_PAUSE_DEFAULT = Duration.ofSeconds(10);
  public static final Duration CHECKPOINT_INTERVAL_DEFAULT = Duration.ofSeconds(10);
  public static final int PARALLELISM_DEFAULT = 2;
  /** The role part of the default outbox directory's name. */
  static final String OUTBOX_ROLE = "maintenance";

  private final String catalogName;
  private final Map<String, String> catalogProperties;
  private final URI feedUri;
  /** Never printed. */
  private final String feedToken;
  /** Null for the default, which is resolved where the publisher runs (its temp directory). */
  private final String feedOutboxDir;
  private final long feedOutboxMaxBytes;
  private final long feedFrom;
  private final Duration pollInterval;
  private final Duration sweepInterval;
  private final Duration rewritePause;
  private final int parallelism;
  private final Duration checkpointInterval;

  private MaintenanceConfig(Builder b) {
    this.catalogName = b.catalogName;
    this.catalogProperties = Collections.unmodifiableMap(new LinkedHashMap<>(b.catalogProperties));
    this.feedUri = b.feedUri;
    this.feedToken = b.feedToken;
    this.feedOutboxDir = b.feedOutboxDir;
    this.feedOutboxMaxBytes = b.feedOutboxMaxBytes;
    this.feedFrom = b.feedFrom;
    this.pollInterval = b.pollInterval;
    this.sweepInterval = b.sweepInterval;
    this.rewritePause = b.rewritePause;
    this.parallelism = b.parallelism;
    this.checkpointInterval = b.checkpointInterval;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Catalog newCatalog() {
    return Catalogs.load(catalogName, catalogProperties);
  }

  /**
   * Maintenance commits are announced on the same feed the job reads, through the outbox in
   * {@link #feedOutboxDir()} (each publisher claims a slot of its own there). The caller closes
   * it.
   */
  public EventPublisher newEventPublisher() {
    return HttpEventPublisher.builder(feedUri).token(feedToken).outboxDir(feedOutboxDir())
        .outboxMaxBytes(feedOutboxMaxBytes).build();
  }

  public URI feedUri() {
    return feedUri;
  }

  /** The bearer token for the feed, or null; for clients of the feed, never for logs. */
  public String feedToken() {
    return feedToken;
  }

  /**
   * The directory of the event outbox: the configured one, or the default under this JVM's
   * temp directory, named after the catalog so two deployments on one host never share it.
   */
  public Path feedOutboxDir() {
    return feedOutboxDir != null ? Path.of(feedOutboxDir)
        : DurableOutbox.defaultDirectory(OUTBOX_ROLE, catalogName + "\n"
            + catalogProperties.get(CatalogProperties.URI) + "\n"
            + catalogProperties.get(CatalogProperties.WAREHOUSE_LOCATION));
  }

  public long feedOutboxMaxBytes() {
    return feedOutboxMaxBytes;
  }

  public long feedFrom() {
    return feedFrom;
  }

  public Duration pollInterval() {
    return pollInterval;
  }

  /** Zero when the sweep is off. */
  public Duration sweepInterval() {
    return sweepInterval;
  }

  public Duration rewritePause() {
    return rewritePause;
  }

  public int parallelism() {
    return parallelism;
  }

  public Duration checkpointInterval() {
    return checkpointInterval;
  }

  public static MaintenanceConfig fromArgs(String... args) {
    Builder b = builder();
    JobArguments.parse(args).forEach(arg -> set(b, arg.getKey(), arg.getValue()));
    return b.build();
  }

  private static void set(Builder b, String key, String value) {
    if (key.startsWith("catalog.")) {
      b.catalogProperty(key.substring("catalog.".length()), value);
      return;
    }
    switch (key) {
      case "catalog-name" -> b.catalogName(value);
      case "feed.uri" -> b.feedUri(URI.create(value));
      case "feed.token" -> b.feedToken(value);
      case "feed.outbox-dir" -> b.feedOutboxDir(Path.of(value));
      case "feed.outbox-max-bytes" -> b.feedOutboxMaxBytes(Long.parseLong(value));
      case "feed.from" -> b.feedFrom(Long.parseLong(value));
      case "feed.poll-interval" -> b.pollInterval(JobArguments.duration(key, value));
      case "sweep-interval" -> b.sweepInterval(JobArguments.duration(key, value));
      case "rewrite-pause" -> b.rewritePause(JobArguments.duration(key, value));
      case "parallelism" -> b.parallelism(Integer.parseInt(value));
      case "checkpoint-interval" -> b.checkpointInterval(JobArguments.duration(key, value));
      default -> throw new IllegalArgumentException("Unknown argument: --" + key);
    }
  }

  /** Validates each value when set; {@code build} checks that the required ones are there. */
  public static final class Builder {
    private String catalogName = CATALOG_NAME_DEFAULT;
    private final Map<String, String> catalogProperties = new LinkedHashMap<>();
    private URI feedUri;
    private String feedToken;
    private String feedOutboxDir;
    private long feedOutboxMaxBytes = DurableOutbox.MAX_BYTES_DEFAULT;
    private long feedFrom = 1;
    private Duration pollInterval = POLL_INTERVAL_DEFAULT;
    private Duration sweepInterval = SWEEP_INTERVAL_DEFAULT;
    private Duration rewritePause = REWRITE_PAUSE_DEFAULT;
    private int parallelism = PARALLELISM_DEFAULT;
    private Duration checkpointInterval = CHECKPOINT_INTERVAL_DEFAULT;

    private Builder() {}

    public Builder catalogName(String value) {
      this.catalogName = Objects.requireNonNull(value, "catalog name");
      return this;
    }

    public Builder catalogProperty(String key, String value) {
      catalogProperties.put(key, value);
      return this;
    }

    public Builder catalogProperties(Map<String, String> values) {
      catalogProperties.putAll(values);
      return this;
    }

    public Builder feedUri(URI value) {
      this.feedUri = Objects.requireNonNull(value, "feed uri");
      return this;
    }

    /** The bearer token sent to the feed, for reading and publishing. */
    public Builder feedToken(String value) {
      this.feedToken = HttpEventPublisher.checkToken(value);
      return this;
    }

    /** Where undelivered events wait; see the class comment for the default. */
    public Builder feedOutboxDir(Path value) {
      if (value == null || value.toString().isBlank()) {
        throw new IllegalArgumentException("Invalid feed outbox directory: '" + value + "'");
      }
      this.feedOutboxDir = value.toString();
      return this;
    }

    public Builder feedOutboxMaxBytes(long value) {
      this.feedOutboxMaxBytes = DurableOutbox.checkMaxBytes(value);
      return this;
    }

    public Builder feedFrom(long value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid feed start sequence: " + value + " (must be >= 1)");
      }
      this.feedFrom = value;
      return this;
    }

    public Builder pollInterval(Duration value) {
      this.pollInterval = positive("poll interval", value);
      return this;
    }

    public Builder sweepInterval(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("Invalid sweep interval: " + value + " (must be >= 0)");
      }
      this.sweepInterval = value;
      return this;
    }

    public Builder rewritePause(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("Invalid rewrite pause: " + value + " (must be >= 0)");
      }
      this.rewritePause = value;
      return this;
    }

    public Builder parallelism(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid parallelism: " + value + " (must be >= 1)");
      }
      this.parallelism = value;
      return this;
    }

    public Builder checkpointInterval(Duration value) {
      this.checkpointInterval = positive("checkpoint interval", value);
      return this;
    }

    private static Duration positive(String what, Duration value) {
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value + " (must be > 0)");
      }
      return value;
    }

    public MaintenanceConfig build() {
      if (feedUri == null) {
        throw new IllegalArgumentException("Missing --feed.uri: the change feed to follow");
      }
      if (!catalogProperties.containsKey("type") && !catalogProperties.containsKey("catalog-impl")) {
        throw new IllegalArgumentException("Missing --catalog.type (or --catalog.catalog-impl)");
      }
      return new MaintenanceConfig(this);
    }
  }
}
