package io.verglas.maintenance.policy;

import java.time.Duration;
import java.util.Objects;

/**
 * The target layout of one table and when to act on it. Immutable; built and validated by
 * {@link Builder}, read from table properties by {@link MaintenancePolicyParser}.
 *
 * <p>Sizes are bytes. A data file is <em>small</em> below {@link #minFileSizeBytes} and
 * <em>oversized</em> above {@link #maxFileSizeBytes}; rewrites aim at {@link
 * #targetFileSizeBytes}. Thresholds decide when a partition is worth a rewrite: deltas pile up
 * (delete files, small files) until one of them is crossed, so each rewrite pays for many
 * commits.
 */
public final class MaintenancePolicy {
  private final boolean enabled;
  private final long targetFileSizeBytes;
  private final long minFileSizeBytes;
  private final long maxFileSizeBytes;
  private final long maxGroupBytes;
  private final int deleteFileCountThreshold;
  private final double deleteRatioThreshold;
  private final int smallFileCountThreshold;
  private final int manifestCountThreshold;
  private final Duration snapshotMaxAge;
  private final int snapshotMinCount;
  private final Duration orphanSafetyAge;
  private final Duration rewritePause;

  private MaintenancePolicy(Builder b) {
    this.enabled = b.enabled;
    this.targetFileSizeBytes = b.targetFileSizeBytes;
    this.minFileSizeBytes = b.resolvedMin();
    this.maxFileSizeBytes = b.resolvedMax();
    this.maxGroupBytes = b.maxGroupBytes;
    this.deleteFileCountThreshold = b.deleteFileCountThreshold;
    this.deleteRatioThreshold = b.deleteRatioThreshold;
    this.smallFileCountThreshold = b.smallFileCountThreshold;
    this.manifestCountThreshold = b.manifestCountThreshold;
    this.snapshotMaxAge = b.snapshotMaxAge;
    this.snapshotMinCount = b.snapshotMinCount;
    this.orphanSafetyAge = b.orphanSafetyAge;
    this.rewritePause = b.rewritePause;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The documented defaults (see {@link MaintenancePolicyParser} for the property names). */
  public static MaintenancePolicy defaults() {
    return builder().build();
  }

  /** A builder starting from this policy's values. */
  public Builder toBuilder() {
    return new Builder()
        .enabled(enabled)
        .targetFileSizeBytes(targetFileSizeBytes)
        .minFileSizeBytes(minFileSizeBytes)
        .maxFileSizeBytes(maxFileSizeBytes)
        .maxGroupBytes(maxGroupBytes)
        .deleteFileCountThreshold(deleteFileCountThreshold)
        .deleteRatioThreshold(deleteRatioThreshold)
        .smallFileCountThreshold(smallFileCountThreshold)
        .manifestCountThreshold(manifestCountThreshold)
        .snapshotMaxAge(snapshotMaxAge)
        .snapshotMinCount(snapshotMinCount)
        .orphanSafetyAge(orphanSafetyAge)
        .rewritePause(rewritePause);
  }

  /** False when the table opted out: the loop leaves it alone. */
  public boolean enabled() {
    return enabled;
  }

  public long targetFileSizeBytes() {
    return targetFileSizeBytes;
  }

  public long minFileSizeBytes() {
    return minFileSizeBytes;
  }

  public long maxFileSizeBytes() {
    return maxFileSizeBytes;
  }

  /** Upper bound of the input bytes of one rewrite (one commit); bounds a rewrite's time. */
  public long maxGroupBytes() {
    return maxGroupBytes;
  }

  /** A partition with at least this many delete files (DVs or position deletes) is compacted. */
  public int deleteFileCountThreshold() {
    return deleteFileCountThreshold;
  }

  /** A data file whose deleted rows reach this share of its rows is rewritten. */
  public double deleteRatioThreshold() {
    return deleteRatioThreshold;
  }

  /** A partition with at least this many small data files has them merged. */
  public int smallFileCountThreshold() {
    return smallFileCountThreshold;
  }

  /** At least this many small data manifests are merged into few. */
  public int manifestCountThreshold() {
    return manifestCountThreshold;
  }

  public Duration snapshotMaxAge() {
    return snapshotMaxAge;
  }

  public int snapshotMinCount() {
    return snapshotMinCount;
  }

  /** Unreferenced files younger than this are never removed (a commit may be writing them). */
  public Duration orphanSafetyAge() {
    return orphanSafetyAge;
  }

  /**
   * The least time between two rewrites of one table: optimistic concurrency has no fairness,
   * so a compactor rewriting back to back could starve the materializer's commits.
   */
  public Duration rewritePause() {
    return rewritePause;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MaintenancePolicy p)) {
      return false;
    }
    return enabled == p.enabled && targetFileSizeBytes == p.targetFileSizeBytes
        && minFileSizeBytes == p.minFileSizeBytes && maxFileSizeBytes == p.maxFileSizeBytes
        && maxGroupBytes == p.maxGroupBytes
        && deleteFileCountThreshold == p.deleteFileCountThreshold
        && Double.compare(deleteRatioThreshold, p.deleteRatioThreshold) == 0
        && smallFileCountThreshold == p.smallFileCountThreshold
        && manifestCountThreshold == p.manifestCountThreshold
        && snapshotMaxAge.equals(p.snapshotMaxAge) && snapshotMinCount == p.snapshotMinCount
        && orphanSafetyAge.equals(p.orphanSafetyAge) && rewritePause.equals(p.rewritePause);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, targetFileSizeBytes, minFileSizeBytes, maxFileSizeBytes,
        maxGroupBytes, deleteFileCountThreshold, deleteRatioThreshold, smallFileCountThreshold,
        manifestCountThreshold, snapshotMaxAge, snapshotMinCount, orphanSafetyAge, rewritePause);
  }

  @Override
  public String toString() {
    return "MaintenancePolicy{enabled=" + enabled + ", target=" + targetFileSizeBytes
        + ", min=" + minFileSizeBytes + ", max=" + maxFileSizeBytes + ", maxGroup="
        + maxGroupBytes + ", deleteFiles>=" + deleteFileCountThreshold + ", deleteRatio>="
        + deleteRatioThreshold + ", smallFiles>=" + smallFileCountThreshold + ", manifests>=" + manifestCountThreshold
        + ", snapshotMaxAge=" + snapshotMaxAge + ", snapshotMinCount=" + snapshotMinCount
        + ", orphanSafetyAge=" + orphanSafetyAge + ", rewritePause=" + rewritePause + "}";
  }

  /**
   * Validates each value as it is set and the relations between sizes in {@link #build}.
   * Unset sizes follow the target: min = 3/4, max = 9/5 of it (Iceberg's rewrite defaults).
   */
  public static final class Builder {
    private boolean enabled = true;
    private long targetFileSizeBytes = MaintenancePolicyParser.TARGET_FILE_SIZE_DEFAULT;
    private long minFileSizeBytes = -1;
    private long maxFileSizeBytes = -1;
    private long maxGroupBytes = MaintenancePolicyParser.MAX_GROUP_BYTES_DEFAULT;
    private int deleteFileCountThreshold = MaintenancePolicyParser.DELETE_FILE_COUNT_DEFAULT;
    private double deleteRatioThreshold = MaintenancePolicyParser.DELETE_RATIO_DEFAULT;
    private int smallFileCountThreshold = MaintenancePolicyParser.SMALL_FILE_COUNT_DEFAULT;
    private int manifestCountThreshold = MaintenancePolicyParser.MANIFEST_COUNT_DEFAULT;
    private Duration snapshotMaxAge = MaintenancePolicyParser.SNAPSHOT_MAX_AGE_DEFAULT;
    private int snapshotMinCount = MaintenancePolicyParser.SNAPSHOT_MIN_COUNT_DEFAULT;
    private Duration orphanSafetyAge = MaintenancePolicyParser.ORPHAN_SAFETY_AGE_DEFAULT;
    private Duration rewritePause = MaintenancePolicyParser.REWRITE_PAUSE_DEFAULT;

    private Builder() {}

    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    public Builder targetFileSizeBytes(long value) {
      this.targetFileSizeBytes = positive("target file size", value);
      return this;
    }

    public Builder minFileSizeBytes(long value) {
      if (value < 0) {
        throw new IllegalArgumentException("Invalid min file size: " + value + " (must be >= 0)");
      }
      this.minFileSizeBytes = value;
      return this;
    }

    public Builder maxFileSizeBytes(long value) {
      this.maxFileSizeBytes = positive("max file size", value);
      return this;
    }

    public Builder maxGroupBytes(long value) {
      this.maxGroupBytes = positive("max group size", value);
      return this;
    }

    public Builder deleteFileCountThreshold(int value) {
      this.deleteFileCountThreshold = (int) positive("delete file count threshold", value);
      return this;
    }

    public Builder deleteRatioThreshold(double value) {
      if (!(value > 0 && value <= 1)) {
        throw new IllegalArgumentException(
            "Invalid delete ratio threshold: " + value + " (must be in (0, 1])");
      }
      this.deleteRatioThreshold = value;
      return this;
    }

    public Builder smallFileCountThreshold(int value) {
      if (value < 2) {
        throw new IllegalArgumentException("Invalid small file count threshold: " + value
            + " (must be >= 2: merging one file gains nothing)");
      }
      this.smallFileCountThreshold = value;
      return this;
    }

    public Builder manifestCountThreshold(int value) {
      if (value < 2) {
        throw new IllegalArgumentException("Invalid manifest count threshold: " + value
            + " (must be >= 2: merging one manifest gains nothing)");
      }
      this.manifestCountThreshold = value;
      return this;
    }

    public Builder snapshotMaxAge(Duration value) {
      this.snapshotMaxAge = nonNegative("snapshot max age", value);
      return this;
    }

    public Builder snapshotMinCount(int value) {
      this.snapshotMinCount = (int) positive("snapshot min count", value);
      return this;
    }

    public Builder orphanSafetyAge(Duration value) {
      this.orphanSafetyAge = nonNegative("orphan safety age", value);
      return this;
    }

    public Builder rewritePause(Duration value) {
      this.rewritePause = nonNegative("rewrite pause", value);
      return this;
    }

    public MaintenancePolicy build() {
      long min = resolvedMin();
      long max = resolvedMax();
      if (min > targetFileSizeBytes || targetFileSizeBytes > max) {
        throw new IllegalArgumentException("Invalid file sizes: min " + min + " <= target "
            + targetFileSizeBytes + " <= max " + max + " must hold");
      }
      if (maxGroupBytes < max) {
        throw new IllegalArgumentException("Invalid max group size: " + maxGroupBytes
            + " (must be >= max file size " + max + ")");
      }
      return new MaintenancePolicy(this);
    }

    private long resolvedMin() {
      return minFileSizeBytes < 0 ? targetFileSizeBytes * 3 / 4 : minFileSizeBytes;
    }

    private long resolvedMax() {
      return maxFileSizeBytes < 0 ? targetFileSizeBytes * 9 / 5 : maxFileSizeBytes;
    }

    private static long positive(String what, long value) {
      if (value <= 0) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value + " (must be > 0)");
      }
      return value;
    }

    private static Duration nonNegative(String what, Duration value) {
      Objects.requireNonNull(value, what);
      if (value.isNegative()) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value + " (must be >= 0)");
      }
      return value;
    }
  }
}
