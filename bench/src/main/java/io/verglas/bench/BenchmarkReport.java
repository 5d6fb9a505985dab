package io.verglas.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The result of one benchmark run, in the JSON shape every Verglas benchmark writes:
 * {@code {"benchmark", "quick", "metrics", "peers", "ratios", "environment"}}. Metrics always
 * include {@code peak_rss_mb} of the measuring process.
 */
public final class BenchmarkReport {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final String benchmark;
  private final boolean quick;
  private final Map<String, Object> metrics;
  private final Map<String, Object> peers;
  private final Map<String, Object> ratios;
  private final Map<String, Object> environment;

  private BenchmarkReport(Builder b) {
    this.benchmark = b.benchmark;
    this.quick = b.quick;
    this.metrics = Map.copyOf(b.metrics);
    this.peers = Map.copyOf(b.peers);
    this.ratios = Map.copyOf(b.ratios);
    this.environment = Map.copyOf(b.environment);
  }

  public static Builder builder(String benchmark, boolean quick) {
    return new Builder(benchmark, quick);
  }

  public Map<String, Object> metrics() { return metrics; }
  public Map<String, Object> peers() { return peers; }
  public Map<String, Object> ratios() { return ratios; }

  public String toJson() {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("benchmark", benchmark);
    root.put("quick", quick);
    root.set("metrics", MAPPER.valueToTree(new java.util.TreeMap<>(metrics)));
    root.set("peers", MAPPER.valueToTree(new java.util.TreeMap<>(peers)));
    root.set("ratios", MAPPER.valueToTree(new java.util.TreeMap<>(ratios)));
    root.set("environment", MAPPER.valueToTree(new java.util.TreeMap<>(environment)));
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public void write(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, toJson() + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write benchmark result to " + file, e);
    }
  }

  /** Collects figures; {@link #build()} adds peak RSS and the environment. */
  public static final class Builder {
    private final String benchmark;
    private final boolean quick;
    private final Map<String, Object> metrics = new LinkedHashMap<>();
    private final Map<String, Object> peers = new LinkedHashMap<>();
    private final Map<String, Object> ratios = new LinkedHashMap<>();
    private final Map<String, Object> environment = new LinkedHashMap<>();

    private Builder(String benchmark, boolean quick) {
      this.benchmark = Objects.requireNonNull(benchmark, "benchmark");
      this.quick = quick;
    }

    public Builder metric(String name, Object value) { metrics.put(name, value); return this; }
    public Builder peer(String name, Object value) { peers.put(name, value); return this; }
    public Builder environment(String name, Object value) { environment.put(name, value); return this; }

    /** A ratio of two figures, rounded to three decimals. */
    public Builder ratio(String name, double numerator, double denominator) {
      if (denominator == 0) {
        throw new IllegalArgumentException("Cannot compute ratio " + name + ": denominator is 0");
      }
      ratios.put(name, Math.round(numerator / denominator * 1000.0) / 1000.0);
      return this;
    }

    public BenchmarkReport build() {
      metrics.putIfAbsent("peak_rss_mb", ProcessMemory.peakRssMb());
      metrics.putIfAbsent("heap_used_mb", ProcessMemory.heapUsedMb());
      metrics.putIfAbsent("direct_memory_mb", ProcessMemory.directMemoryMb());
      Environment.describe().forEach(environment::putIfAbsent);
      return new BenchmarkReport(this);
    }
  }
}
