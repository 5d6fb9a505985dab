package io.verglas.cache.writeback.fragment;

import io.verglas.cache.writeback.code.Geometry;
import java.util.Objects;

/**
 * What a fragment file says about itself: whose write it belongs to, the coding geometry, which
 * of the {@code k + m} fragments it is and the body's length, from which every cell's length
 * follows ({@link Geometry#cellLength}).
 */
public record FragmentHeader(ObjectIdentity identity, Geometry geometry, int index, long bodyLength) {
  public FragmentHeader {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(geometry, "geometry");
    if (index < 0 || index >= geometry.totalFragments()) {
      throw new IllegalArgumentException("Invalid fragment index " + index + ": " + geometry + " has "
          + geometry.totalFragments() + " fragments");
    }
    if (bodyLength < 0) {
      throw new IllegalArgumentException("Invalid body length: " + bodyLength);
    }
  }

  /** The fragment file's length: header, then each stripe's cell and its CRC32C. */
  public long fileLength() {
    return FragmentFormat.headerLength(identity) + geometry.fragmentDataLength(bodyLength)
        + (long) FragmentFormat.CELL_CRC_BYTES * geometry.stripes(bodyLength);
  }

  /** Where stripe {@code stripe}'s cell starts in the file (every stripe before it is full). */
  long cellOffset(long stripe) {
    return FragmentFormat.headerLength(identity) + stripe * ((long) geometry.cellBytes() + FragmentFormat.CELL_CRC_BYTES);
  }
}
