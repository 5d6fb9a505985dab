package io.verglas.maintenance.job;

import io.verglas.catalog.Catalogs;
import io.verglas.events.EventPublisher;
import io.verglas.events.HttpEventPublisher;
import io.verglas.job.JobArguments;
import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
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

  private final String catalogName;
  private final Map<String, String> catalogProperties;
  private final URI feedUri;
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

  /** Maintenance commits are announced on the same feed the job reads. */
  public EventPublisher newEventPublisher() {
    return new HttpEventPublisher(feedUri, 3);
  }

  public URI feedUri() {
    return feedUri;
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
