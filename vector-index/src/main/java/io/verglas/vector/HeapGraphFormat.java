package io.verglas.vector;

import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.NodesIterator;
import io.github.jbellis.jvector.graph.OnHeapGraphIndex;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Writes an on-disk graph's structure in the format JVector's {@code GraphIndexBuilder.load}
 * reads into a mutable on-heap graph (its version 4, as {@code OnHeapGraphIndex.save} writes):
 * the bridge that lets an earlier index be extended instead of rebuilt. Node ids are kept.
 */
/*
 * Layout (big-endian): magic, version 4, layer count, per layer its max degree, the entry node,
 * then per layer its node count and per node: id, neighbor count, per neighbor its id and a
 * score (JVector recomputes scores on load; 0 is written). Never persisted: it lives in a
 * scratch file for one build, written and read by the same JVector version, so it carries no
 * version of ours and has no golden bytes; IncrementalBuildTest checks the round trip through
 * every node and vector of the extended graph.
 */
final class HeapGraphFormat {
  private static final int VERSION = 4;

  private HeapGraphFormat() {}

  static void write(OnDiskGraphIndex graph, DataOutput out) throws IOException {
    out.writeInt(OnHeapGraphIndex.MAGIC);
    out.writeInt(VERSION);
    int layers = graph.getMaxLevel() + 1;
    out.writeInt(layers);
    for (int level = 0; level < layers; level++) {
      out.writeInt(graph.getDegree(level));
    }
    try (OnDiskGraphIndex.View view = graph.getView()) {
      ImmutableGraphIndex.NodeAtLevel entry = view.entryNode();
      out.writeInt(entry == null ? ImmutableGraphIndex.ENTRY_NODE_ABSENT : entry.node);
      for (int level = 0; level < layers; level++) {
        out.writeInt(graph.size(level));
        for (NodesIterator nodes = graph.getNodes(level); nodes.hasNext(); ) {
          int node = nodes.nextInt();
          NodesIterator neighbors = view.getNeighborsIterator(level, node);
          out.writeInt(node);
          out.writeInt(neighbors.size());
          while (neighbors.hasNext()) {
            out.writeInt(neighbors.nextInt());
            out.writeFloat(0f);
          }
        }
      }
    }
  }
}
