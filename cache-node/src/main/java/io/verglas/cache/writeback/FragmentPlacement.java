package io.verglas.cache.writeback;

import io.verglas.cache.cluster.placement.Rendezvous;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Orders candidate nodes for an object's fragments: by capacity-weighted rendezvous score over
 * (bucket, key), highest first, as the cluster's read path orders owners; fragment {@code i}
 * goes to the {@code i}-th node with room, so at most one fragment lands on each node. A pure
 * function: candidates in, order out.
 */
final class FragmentPlacement {
  private FragmentPlacement() {}

  static List<FragmentNode> order(String bucket, String key, List<FragmentNode> candidates) {
    Set<String> ids = new HashSet<>();
    for (FragmentNode node : candidates) {
      if (!ids.add(node.id())) {
        throw new IllegalArgumentException("Cannot place fragments: node " + node.id() + " appears twice");
      }
    }
    long keyHash = Rendezvous.keyHash(bucket, key);
    Comparator<FragmentNode> byScore = Comparator.comparingDouble(
        n -> Rendezvous.score(keyHash, Rendezvous.memberHash(n.id()), n.store().ceilingBytes()));
    return candidates.stream().sorted(byScore.reversed().thenComparing(FragmentNode::id)).toList();
  }
}
