package io.verglas.cache.origin;

import java.util.List;

/** A page of ListParts, in part-number order. */
public record PartListing(List<PartInfo> parts, boolean truncated, int nextPartNumberMarker) {
  public PartListing {
    parts = List.copyOf(parts);
  }
}
