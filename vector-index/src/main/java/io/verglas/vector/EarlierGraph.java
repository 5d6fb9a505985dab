package io.verglas.vector;

import io.github.jbellis.jvector.disk.ReaderSupplier;
import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * An earlier index's graph opened to be extended: a vector per node id (the caller's, or for
 * deleted nodes the earlier graph's own) and the graph's structure written in JVector's on-heap
 * format to a scratch file, from which a {@code GraphIndexBuilder} loads it.
 */
record EarlierGraph(List<VectorFloat<?>> vectors, int count, int maxDegree, boolean hierarchy,
    Path scratch) {
  private static final VectorTypeSupport VECTORS =
      VectorizationProvider.getInstance().getVectorTypeSupport();

  /**
   * Reads the earlier graph; {@code byId} holds a vector per node id, null at the ids of
   * {@code deleted}, and one per new node after the earlier ones.
   */
  static EarlierGraph open(ReaderSupplier base, List<float[]> byId, BitSet deleted, Path scratch)
      throws IOException {
    try (OnDiskGraphIndex earlier = OnDiskGraphIndex.load(base)) {
      List<VectorFloat<?>> vectors = vectorsById(earlier, byId, deleted);
      try (DataOutputStream heap = new DataOutputStream(new BufferedOutputStream(
          Files.newOutputStream(scratch)))) {
        HeapGraphFormat.write(earlier, heap);
      }
      return new EarlierGraph(vectors, earlier.getIdUpperBound(), earlier.maxDegree(),
          earlier.isHierarchical(), scratch);
    }
  }

  void checkBuiltWith(int degree, boolean withHierarchy) {
    if (degree != maxDegree || withHierarchy != hierarchy) {
      throw new IllegalArgumentException("Cannot extend vector index: it was built with degree "
          + maxDegree + (hierarchy ? " and" : " and no") + " hierarchy, the builder has "
          + degree + (withHierarchy ? " and" : " and no") + " hierarchy");
    }
  }

  /** Loads the structure into {@code graphs}, which must be empty, with the same node ids. */
  @SuppressWarnings("deprecation")
  void loadInto(GraphIndexBuilder graphs) throws IOException {
    try (FileChannel heap = FileChannel.open(scratch, StandardOpenOption.READ)) {
      graphs.load(StoredIndex.of(mapped(heap), null).readers().get());
    }
  }

  private static List<VectorFloat<?>> vectorsById(OnDiskGraphIndex earlier, List<float[]> byId,
      BitSet deleted) throws IOException {
    List<VectorFloat<?>> vectors = new ArrayList<>(byId.size());
    try (OnDiskGraphIndex.View view = earlier.getView()) {
      for (int node = 0; node < byId.size(); node++) {
        float[] vector = byId.get(node);
        if (vector != null) {
          vectors.add(VECTORS.createFloatVector(vector));
        } else if (node < earlier.getIdUpperBound() && deleted.get(node)) {
          VectorFloat<?> stored = VECTORS.createFloatVector(earlier.getDimension());
          view.getVectorInto(node, stored, 0);
          vectors.add(stored);
        } else {
          throw new IllegalArgumentException("Cannot extend vector index: no vector for node "
              + node);
        }
      }
    }
    return vectors;
  }

  /** The scratch file mapped in pieces a JVector reader can cross (a buffer holds 2 GiB). */
  private static List<ByteBuffer> mapped(FileChannel file) throws IOException {
    List<ByteBuffer> pieces = new ArrayList<>();
    for (long offset = 0; offset < file.size(); offset += IndexBlobs.MAX_SHARD_BYTES) {
      pieces.add(file.map(FileChannel.MapMode.READ_ONLY, offset,
          Math.min(IndexBlobs.MAX_SHARD_BYTES, file.size() - offset)));
    }
    return pieces;
  }
}
