package io.verglas.materializer.delta;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Which tables' checkpoint intervals hold their rows staged until the barrier, so that no version
 * replaced within the interval reaches a data file (see {@link StagingPolicy}); the others encode
 * their rows a batch at a time while the interval goes on.
 */
public enum IntervalStaging {
  /** Tables whose last interval saw a quarter of its rows replaced within it. */
  AUTO,
  /** Every table: no replaced version ever reaches a file, at the price of a longer barrier. */
  ALWAYS,
  /** No table: rows are encoded as they come, a replaced one is deleted. */
  NEVER;

  /** The value of its lower-case name ({@code auto}, {@code always}, {@code never}). */
  public static IntervalStaging parse(String name) {
    try {
      return valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid interval staging '" + name + "': expected one of "
          + Arrays.stream(values()).map(value -> value.name().toLowerCase(Locale.ROOT))
              .collect(Collectors.joining(", ")), e);
    }
  }
}
