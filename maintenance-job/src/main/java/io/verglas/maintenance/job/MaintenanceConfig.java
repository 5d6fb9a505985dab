package io.verglas.maintenance.job;

import io.verglas.catalog.Catalogs;
import io.verglas.events.EventPublisher;
import io.verglas.events.HttpEventPublisher;
import io.verglas.events.publish.DurableOutbox;
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
 * <p>Command-line form ({@link #fromArgs}): the arguments {@link MaintenanceSettings} declares
 * (listed with their defaults in docs/configuration.md).
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
    return MaintenanceSettings.parse(args);
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
