package io.verglas.cache.writeback.journal;

import java.util.Objects;

/** Fragment {@code fragment} of a write is durable on node {@code nodeId}. */
public record Placement(int fragment, String nodeId) {
  public Placement {
    Objects.requireNonNull(nodeId, "nodeId");
    if (fragment < 0) {
      throw new IllegalArgumentException("Invalid fragment index: " + fragment);
    }
    if (nodeId.isEmpty()) {
      throw new IllegalArgumentException("Invalid node id: empty");
    }
  }
}
