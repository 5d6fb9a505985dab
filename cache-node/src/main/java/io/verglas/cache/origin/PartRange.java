package io.verglas.cache.origin;

/**
 * Where one part of a multipart object lies: bytes {@code start..end} (inclusive) of the object,
 * which has {@code partsCount} parts. A part number beyond the count has no range
 * ({@link #exists()} is false).
 */
public record PartRange(int partsCount, long start, long end) {
  public static PartRange beyond(int partsCount) {
    return new PartRange(partsCount, -1, -1);
  }

  public boolean exists() {
    return start >= 0;
  }
}
