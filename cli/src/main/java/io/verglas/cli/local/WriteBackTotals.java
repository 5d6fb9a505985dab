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
    return nodes.stream().map(node -> node.writeBack().stats()).reduce(WriteBackTotals::sum).orElseThrow();
  }

  static WriteBackStats sum(WriteBackStats a, WriteBackStats b) {
    return new WriteBackStats(a.dirtyObjects() + b.dirtyObjects(), a.dirtyBytes() + b.dirtyBytes(),
        Math.max(a.oldestDirtyAgeMillis(), b.oldestDirtyAgeMillis()), a.acknowledged() + b.acknowledged(),
        a.writtenThrough() + b.writtenThrough(), a.propagated() + b.propagated(),
        a.propagatedBytes() + b.propagatedBytes(), a.propagationFailures() + b.propagationFailures(),
        a.fragmentsRepaired() + b.fragmentsRepaired(), a.unrepairable() + b.unrepairable());
  }
}
