package io.verglas.cache.writeback;

import io.verglas.cache.writeback.code.Geometry;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Settings of erasure-coded write-back on one node. Built with {@link #builder()}: each setter
 * may be called once (a second call is an IllegalStateException), values are checked as they
 * are set, the rule {@code k ≤ w ≤ k + m} in {@link Builder#build()}.
 *
 * @param geometry {@code k} data and {@code m} parity fragments and the cell size; encoding a
 *     body holds {@code (k + m) * cell} bytes in memory, whatever the body's size
 * @param ackFragments {@code w}: durable fragments on distinct nodes before a PUT is
 *     acknowledged; an acknowledged write survives the loss of any {@code w - k} of them, all
 *     {@code m} losses only with {@code w = k + m}
 * @param directory where this node keeps its fragments ({@code fragments/}) and its journal
 *     ({@code journal/}); on the NVMe disk
 * @param fragmentCeilingBytes the most bytes this node's fragments may take on disk
 */
public record WriteBackConfig(Geometry geometry, int ackFragments, Path directory, long fragmentCeilingBytes) {
  public static final int DEFAULT_DATA_FRAGMENTS = 2;
  public static final int DEFAULT_PARITY_FRAGMENTS = 1;
  public static final int DEFAULT_CELL_BYTES = 1 << 20;
  public static final long DEFAULT_FRAGMENT_CEILING_BYTES = 8L << 30;

  public WriteBackConfig {
    Objects.requireNonNull(geometry, "geometry");
    Objects.requireNonNull(directory, "directory");
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

    private Builder() {}

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
          fragmentCeilingBytes == null ? DEFAULT_FRAGMENT_CEILING_BYTES : fragmentCeilingBytes);
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
