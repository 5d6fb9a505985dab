package io.verglas.cli.local;

import io.verglas.cache.CacheNode;
import io.verglas.cache.writeback.WriteBackStats;
import java.util.List;

/**
 * The local stack's write-back figures: each node coordinates the writes it acknowledged, so
 * the stack's are the nodes' summed (the oldest unpropagated age is the oldest of any node).
 */
final class WriteBackTotals {
  private WriteBackTotals() {}

  /** The nodes' figures summed, or null when the nodes write every PUT through. */
  static WriteBackStats of(List<CacheNode> nodes, boolean enabled) {
    if (!enabled || nodes.isEmpty()) {
      return null;
    }
    return nodes.stream().map(node -> node.writeBack().stats()).reduce(WriteBackStats::plus).orElseThrow();
  }
}
