package io.verglas.vector;

import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.ListRandomAccessVectorValues;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndexWriter;
import io.github.jbellis.jvector.graph.disk.feature.Feature;
import io.github.jbellis.jvector.graph.disk.feature.FeatureId;
import io.github.jbellis.jvector.graph.disk.feature.InlineVectors;
import io.github.jbellis.jvector.graph.disk.feature.SeparatedVectors;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;
import io.github.jbellis.jvector.disk.ReaderSupplier;
import io.github.jbellis.jvector.util.PhysicalCoreExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Builds a Vamana graph with JVector, from scratch or by extending an earlier one, and writes it
 * in JVector's on-disk format, the bytes a {@code verglas-vamana-v1} blob carries. Immutable; one
 * builder serves many builds.
 */
/*
 * Design: the graph is JVector's GraphIndexBuilder (DiskANN's Vamana pruning with alpha, plus a
 * navigable hierarchy of upper layers; without the hierarchy recall collapses on clustered data)
 * built over full-precision vectors, and written in JVector's on-disk format with the vectors as
 * a separate section after the node records (not inline): a search scores from vectors decoded
 * once at load, and walks node records that hold only neighbor lists, which keeps them dense
 * in memory (inline, each 32-neighbor record sat between two 3 KiB vectors of Fashion-MNIST). Product quantization would
 * pay for itself only when the graph no longer fits the decoded-index cache; it is not used yet.
 */
public final class IndexBuilder {
  private static final VectorTypeSupport VECTORS =
      VectorizationProvider.getInstance().getVectorTypeSupport();

  private final VectorMetric metric;
  private final int maxDegree;
  private final int beamWidth;
  private final float alpha;
  private final float neighborOverflow;
  private final boolean hierarchy;

  private IndexBuilder(Builder b) {
    this.metric = b.metric;
    this.maxDegree = b.maxDegree;
    this.beamWidth = b.beamWidth;
    this.alpha = b.alpha;
    this.neighborOverflow = b.neighborOverflow;
    this.hierarchy = b.hierarchy;
  }

  public static Builder builder() {
    return new Builder();
  }

  public VectorMetric metric() { return metric; }

  /** This builder with another metric, every other option the same. */
  public IndexBuilder withMetric(VectorMetric value) {
    if (value == metric) {
      return this;
    }
    return builder().metric(value).maxDegree(maxDegree).beamWidth(beamWidth).alpha(alpha)
        .neighborOverflow(neighborOverflow).hierarchy(hierarchy).build();
  }

  public int maxDegree() { return maxDegree; }
  public int beamWidth() { return beamWidth; }
  public boolean hierarchy() { return hierarchy; }

  /**
   * Builds the graph over {@code vectors} (ordinal = list index, all of one dimension) and
   * writes it to {@code out}; returns the number of bytes written.
   */
  public long write(List<float[]> vectors, Path out) {
    if (vectors.isEmpty()) {
      throw new IllegalArgumentException("Cannot build vector index: no vectors");
    }
    RandomAccessVectorValues values = values(vectors);
    try (GraphIndexBuilder graphs = newGraphBuilder(values)) {
      return writeGraph(graphs.build(values), values, out);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write vector index to " + out, e);
    }
  }

  /**
   * Extends an earlier graph (written by this class, read through {@code base}) into the graph
   * of {@code byId}: node ids below the earlier count are its nodes, kept or, when in
   * {@code deleted}, removed (JVector repairs their neighbors' edges); ids from the earlier count
   * up are inserted. Surviving ids are renumbered densely in ascending order. {@code byId} is
   * null at deleted ids (their vectors are read from the earlier graph, for the searches that
   * still walk them). {@code scratch} holds the earlier structure in JVector's on-heap format
   * while it is loaded. Returns the number of bytes written to {@code out}.
   */
  public long update(ReaderSupplier base, List<float[]> byId, BitSet deleted, Path scratch,
      Path out) {
    try {
      EarlierGraph earlier = EarlierGraph.open(base, byId, deleted, scratch);
      earlier.checkBuiltWith(maxDegree, hierarchy);
      RandomAccessVectorValues values = new ListRandomAccessVectorValues(earlier.vectors(),
          earlier.vectors().get(0).length());
      try (GraphIndexBuilder graphs = newGraphBuilder(values)) {
        earlier.loadInto(graphs);
        deleted.stream().forEach(graphs::markNodeDeleted);
        PhysicalCoreExecutor.pool().submit(() -> IntStream.range(earlier.count(), values.size())
            .parallel().forEach(node -> graphs.addGraphNode(node, values.getVector(node))))
            .join();
        graphs.cleanup();
        int expected = values.size() - deleted.cardinality();
        if (graphs.getGraph().size(0) != expected) {
          throw new IllegalStateException("Cannot extend vector index: " + graphs.getGraph()
              .size(0) + " nodes after the update, expected " + expected);
        }
        return writeGraph(graphs.getGraph(), values, out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot extend vector index into " + out, e);
    }
  }

  private GraphIndexBuilder newGraphBuilder(RandomAccessVectorValues values) {
    return new GraphIndexBuilder(values, metric.similarity(), maxDegree, beamWidth,
        neighborOverflow, alpha, hierarchy);
  }

  private static long writeGraph(ImmutableGraphIndex graph, RandomAccessVectorValues values,
      Path out) throws IOException {
    try (OnDiskGraphIndexWriter writer = new OnDiskGraphIndexWriter.Builder(graph, out)
        .withMap(OnDiskGraphIndexWriter.sequentialRenumbering(graph))
        .with(new SeparatedVectors(values.dimension(), 0L))
        .build()) {
      writer.write(Feature.singleStateFactory(FeatureId.SEPARATED_VECTORS,
          node -> new InlineVectors.State(values.getVector(node))));
    }
    return out.toFile().length();
  }

  static RandomAccessVectorValues values(List<float[]> vectors) {
    int dimension = vectors.get(0).length;
    List<VectorFloat<?>> wrapped = new ArrayList<>(vectors.size());
    for (int i = 0; i < vectors.size(); i++) {
      float[] vector = vectors.get(i);
      if (vector.length != dimension) {
        throw new IllegalArgumentException("Cannot build vector index: vector " + i + " has "
            + vector.length + " dimensions, expected " + dimension);
      }
      wrapped.add(VECTORS.createFloatVector(vector));
    }
    return new ListRandomAccessVectorValues(wrapped, dimension);
  }

  /** Options of a build; each may be set once. */
  public static final class Builder {
    private VectorMetric metric = VectorMetric.L2;
    private int maxDegree = 32;
    private int beamWidth = 100;
    private float alpha = 1.2f;
    private float neighborOverflow = 1.2f;
    private boolean hierarchy = true;

    private Builder() {}

    public Builder metric(VectorMetric value) {
      this.metric = java.util.Objects.requireNonNull(value, "metric");
      return this;
    }

    /** Neighbors kept per node on the base layer (Vamana's R); 32 by default. */
    public Builder maxDegree(int value) {
      this.maxDegree = atLeast("maxDegree", value, 2);
      return this;
    }

    /** Candidates considered per insertion (Vamana's L); 100 by default. */
    public Builder beamWidth(int value) {
      this.beamWidth = atLeast("beamWidth", value, 1);
      return this;
    }

    /** Vamana's pruning slack; 1.2 by default. */
    public Builder alpha(float value) {
      if (!(value >= 1.0f)) {
        throw new IllegalArgumentException("Cannot set alpha: " + value + " (must be >= 1)");
      }
      this.alpha = value;
      return this;
    }

    public Builder neighborOverflow(float value) {
      if (!(value >= 1.0f)) {
        throw new IllegalArgumentException("Cannot set neighborOverflow: " + value
            + " (must be >= 1)");
      }
      this.neighborOverflow = value;
      return this;
    }

    /** Whether to add upper layers for entry (on by default; off hurts clustered data). */
    public Builder hierarchy(boolean value) {
      this.hierarchy = value;
      return this;
    }

    public IndexBuilder build() {
      return new IndexBuilder(this);
    }

    private static int atLeast(String name, int value, int min) {
      if (value < min) {
        throw new IllegalArgumentException("Cannot set " + name + ": " + value
            + " (must be >= " + min + ")");
      }
      return value;
    }
  }
}
