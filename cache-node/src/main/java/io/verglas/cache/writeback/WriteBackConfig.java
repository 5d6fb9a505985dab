package io.verglas.cache.writeback;

import io.verglas.cache.writeback.code.Geometry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Settings of erasure-coded write-back on one node. Built with {@link #builder()}: each setter
 * may be called once (a second call is an IllegalStateException), values are checked as they
 * are set, the rule {@code k ≤ w ≤ k + m} in {@link Builder#build()}.
 *
 * @param geometry {@code k} data and {@code m} parity fragments and the cell size; encoding a
 *     body holds {@code 2 * (k + m) * cell} bytes in memory, whatever the body's size
 * @param ackFragments {@code w}: durable fragments on distinct nodes before a PUT is
 *     acknowledged; an acknowledged write survives the loss of any {@code w - k} of them, all
 *     {@code m} losses only with {@code w = k + m}
 * @param directory where this node keeps its fragments ({@code fragments/}) and its journal
 *     ({@code journal/}); on the NVMe disk
 * @param fragmentCeilingBytes the most bytes this node's fragments may take on disk
 * @param scopes the buckets and key prefixes whose PUTs a cache node buffers; empty: none (every
 *     write goes through to the origin, the default)
 * @param localFragmentStores whether the {@code k + m} fragments of a write go to {@code k + m}
 *     directories of this one node ({@code fragments/local-N}) instead of distinct cluster
 *     nodes: for tests and single-node setups that accept losing buffered writes with the disk
 * @param propagationInterval how often the node's propagator looks for buffered changes; after
 *     a failed pass it waits twice as long each time, up to {@link #MAX_PROPAGATION_BACKOFF}
 * @param orphanGracePeriod how old a fragment no journal record names must be before the node
 *     removes it (with each scrub): far above a PUT's staging time, since another coordinator's
 *     fragments are committed here before its record arrives
 */
public record WriteBackConfig(Geometry geometry, int ackFragments, Path directory, long fragmentCeilingBytes,
    List<Scope> scopes, boolean localFragmentStores, Duration propagationInterval, Duration orphanGracePeriod) {
  public static final int DEFAULT_DATA_FRAGMENTS = 2;
  public static final int DEFAULT_PARITY_FRAGMENTS = 1;
  public static final int DEFAULT_CELL_BYTES = 1 << 20;
  public static final long DEFAULT_FRAGMENT_CEILING_BYTES = 8L << 30;
  public static final Duration DEFAULT_PROPAGATION_INTERVAL = Duration.ofMillis(200);
  public static final Duration MAX_PROPAGATION_BACKOFF = Duration.ofSeconds(30);
  public static final long DEFAULT_ORPHAN_GRACE_MILLIS = 600_000;
  public static final Duration DEFAULT_ORPHAN_GRACE_PERIOD = Duration.ofMillis(DEFAULT_ORPHAN_GRACE_MILLIS);

  /** A bucket, and the key prefix in it ("" for every key), whose writes are buffered. */
  public record Scope(String bucket, String prefix) {
    public Scope {
      if (bucket == null || bucket.isEmpty()) {
        throw new IllegalArgumentException("Invalid write-back bucket: " + bucket);
      }
      Objects.requireNonNull(prefix, "prefix");
    }

    public boolean covers(String bucket, String key) {
      return this.bucket.equals(bucket) && key.startsWith(prefix);
    }
  }

  public WriteBackConfig {
    Objects.requireNonNull(geometry, "geometry");
    Objects.requireNonNull(directory, "directory");
    scopes = List.copyOf(scopes);
    Objects.requireNonNull(propagationInterval, "propagationInterval");
    Objects.requireNonNull(orphanGracePeriod, "orphanGracePeriod");
  }

  /** Whether writes of the key are buffered. */
  public boolean covers(String bucket, String key) {
    return scopes.stream().anyMatch(s -> s.covers(bucket, key));
  }

  /** Whether any key of the bucket may be buffered. */
  public boolean coversBucket(String bucket) {
    return scopes.stream().anyMatch(s -> s.bucket().equals(bucket));
  }

  public static Builder builder() {
    return new Builder();
  }

  public Path fragmentDirectory() {
    return directory.resolve("fragments");
  }

  public Path journalFile() {
    return directory.resolve("journal").resolve("write-journal");
  }

  /** Builds a {@link WriteBackConfig}; required: the directory. */
  public static final class Builder {
    private Integer dataFragments;
    private Integer parityFragments;
    private Integer ackFragments;
    private Integer cellBytes;
    private Path directory;
    private Long fragmentCeilingBytes;
    private final List<Scope> scopes = new ArrayList<>();
    private Boolean localFragmentStores;
    private Duration propagationInterval;
    private Duration orphanGracePeriod;

    private Builder() {}

    /** Buffers the writes of keys of {@code bucket} starting with {@code prefix}; may be called for several. */
    public Builder enable(String bucket, String prefix) {
      scopes.add(new Scope(bucket, prefix));
      return this;
    }

    /** See {@link WriteBackConfig#localFragmentStores()}; default false. */
    public Builder localFragmentStores(boolean value) {
      once(localFragmentStores, "localFragmentStores");
      localFragmentStores = value;
      return this;
    }

    /** Default {@link WriteBackConfig#DEFAULT_PROPAGATION_INTERVAL}. */
    public Builder propagationInterval(Duration value) {
      once(propagationInterval, "propagationInterval");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid propagation interval: " + value + " (must be positive)");
      }
      propagationInterval = value;
      return this;
    }

    /** Default {@link WriteBackConfig#DEFAULT_ORPHAN_GRACE_PERIOD}. */
    public Builder orphanGracePeriod(Duration value) {
      once(orphanGracePeriod, "orphanGracePeriod");
      if (value.isNegative()) {
        throw new IllegalArgumentException("Invalid orphan grace period: " + value + " (must not be negative)");
      }
      orphanGracePeriod = value;
      return this;
    }

    /** {@code k}, default {@value #DEFAULT_DATA_FRAGMENTS}. */
    public Builder dataFragments(int value) {
      once(dataFragments, "dataFragments");
      dataFragments = atLeast(value, 1, "data fragments k");
      return this;
    }

    /** {@code m}, default {@value #DEFAULT_PARITY_FRAGMENTS}. */
    public Builder parityFragments(int value) {
      once(parityFragments, "parityFragments");
      parityFragments = atLeast(value, 1, "parity fragments m");
      return this;
    }

    /** {@code w}, default {@code k + m}. */
    public Builder ackFragments(int value) {
      once(ackFragments, "ackFragments");
      ackFragments = atLeast(value, 1, "ack fragments w");
      return this;
    }

    /** Default {@value #DEFAULT_CELL_BYTES}. */
    public Builder cellBytes(int value) {
      once(cellBytes, "cellBytes");
      cellBytes = atLeast(value, 1, "cell size");
      return this;
    }

    public Builder directory(Path value) {
      once(directory, "directory");
      directory = Objects.requireNonNull(value, "directory");
      return this;
    }

    /** Default {@value #DEFAULT_FRAGMENT_CEILING_BYTES}. */
    public Builder fragmentCeilingBytes(long value) {
      once(fragmentCeilingBytes, "fragmentCeilingBytes");
      if (value <= 0) {
        throw new IllegalArgumentException("Invalid fragment ceiling: " + value + " bytes (must be positive)");
      }
      fragmentCeilingBytes = value;
      return this;
    }

    public WriteBackConfig build() {
      if (directory == null) {
        throw new IllegalStateException("Cannot build write-back settings: no directory");
      }
      Geometry geometry = new Geometry(or(dataFragments, DEFAULT_DATA_FRAGMENTS),
          or(parityFragments, DEFAULT_PARITY_FRAGMENTS), or(cellBytes, DEFAULT_CELL_BYTES));
      int w = or(ackFragments, geometry.totalFragments());
      if (w < geometry.dataFragments() || w > geometry.totalFragments()) {
        throw new IllegalArgumentException("Invalid ack fragments w=" + w + ": must be between k="
            + geometry.dataFragments() + " and k+m=" + geometry.totalFragments());
      }
      return new WriteBackConfig(geometry, w, directory,
          fragmentCeilingBytes == null ? DEFAULT_FRAGMENT_CEILING_BYTES : fragmentCeilingBytes, scopes,
          localFragmentStores != null && localFragmentStores,
          propagationInterval == null ? DEFAULT_PROPAGATION_INTERVAL : propagationInterval,
          orphanGracePeriod == null ? DEFAULT_ORPHAN_GRACE_PERIOD : orphanGracePeriod);
    }

    private static int or(Integer value, int fallback) {
      return value == null ? fallback : value;
    }

    private static int atLeast(int value, int min, String what) {
      if (value < min) {
        throw new IllegalArgumentException("Invalid " + what + ": " + value + " (must be at least " + min + ")");
      }
      return value;
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException("Cannot set " + name + " twice");
      }
    }
  }
}
