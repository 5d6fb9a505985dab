package io.verglas.cache.cluster.process;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a {@link ClusterNodeProcess} runs: node {@code node-<index>} of a cluster whose gossip
 * listeners are {@code gossipPorts} on 127.0.0.1 (this node binds the one at its index), over a
 * local directory origin or an anonymous S3 origin, with a DRAM tier and no NVMe tier. Passed
 * on the command line as {@code --name=value} ({@link #arguments()}, {@link #parse}); secrets
 * travel in the environment ({@link ClusterNodeProcess}), never here.
 *
 * @param originDir a {@code LocalDirectoryOrigin}'s root, or null
 * @param originEndpoint an S3 origin read anonymously, or null (exactly one of the two is set)
 * @param immutableObjects every object is immutable (never revalidated); else Iceberg's paths
 * @param writeBackDir the node's write-back directory (fragments, journal, journal copies), or
 *     null for none
 * @param writeBackScope with {@code writeBackDir}: {@code BUCKET/PREFIX}, the keys whose PUTs
 *     are buffered (k=2, m=1, w=3, 64 KiB cells)
 */
public record NodeSettings(int index, List<Integer> gossipPorts, Path originDir,
    URI originEndpoint, int blockBytes, long dramBytes, Duration peerTimeout,
    Duration failureTimeout, long hotReplicaBytes, boolean immutableObjects, Path writeBackDir,
    String writeBackScope) {
  public NodeSettings {
    gossipPorts = List.copyOf(gossipPorts);
    if (index < 0 || index >= gossipPorts.size()) {
      throw new IllegalArgumentException("Invalid node index " + index + " for "
          + gossipPorts.size() + " gossip ports");
    }
    if ((originDir == null) == (originEndpoint == null)) {
      throw new IllegalArgumentException("Invalid node settings: exactly one of origin-dir and origin-endpoint");
    }
    Objects.requireNonNull(peerTimeout, "peerTimeout");
    Objects.requireNonNull(failureTimeout, "failureTimeout");
    if ((writeBackDir == null) != (writeBackScope == null)
        || (writeBackScope != null && writeBackScope.indexOf('/') < 1)) {
      throw new IllegalArgumentException("Invalid node settings: write-back needs both a directory and a scope "
          + "BUCKET/PREFIX, got " + writeBackDir + " and " + writeBackScope);
    }
  }

  /** Settings for a node of {@code blockBytes} blocks and {@code dramBytes} DRAM over {@code gossipPorts}. */
  public static Builder builder(List<Integer> gossipPorts, int blockBytes, long dramBytes) {
    return new Builder(gossipPorts, blockBytes, dramBytes);
  }

  /** Builds {@link NodeSettings}; defaults: node 0, peer timeout 200 ms, failure timeout 1.5 s, no standby budget. */
  public static final class Builder {
    private final List<Integer> gossipPorts;
    private final int blockBytes;
    private final long dramBytes;
    private int index;
    private Path originDir;
    private URI originEndpoint;
    private Duration peerTimeout = Duration.ofMillis(200);
    private Duration failureTimeout = Duration.ofMillis(1500);
    private long hotReplicaBytes;
    private boolean immutableObjects;
    private Path writeBackDir;
    private String writeBackScope;

    private Builder(List<Integer> gossipPorts, int blockBytes, long dramBytes) {
      this.gossipPorts = gossipPorts;
      this.blockBytes = blockBytes;
      this.dramBytes = dramBytes;
    }

    public Builder index(int value) {
      index = value;
      return this;
    }

    public Builder originDir(Path value) {
      originDir = value;
      return this;
    }

    public Builder originEndpoint(URI value) {
      originEndpoint = value;
      return this;
    }

    public Builder peerTimeout(Duration value) {
      peerTimeout = value;
      return this;
    }

    public Builder hotReplicaBytes(long value) {
      hotReplicaBytes = value;
      return this;
    }

    /** Every object immutable (default: Iceberg's immutable paths only). */
    public Builder immutableObjects(boolean value) {
      immutableObjects = value;
      return this;
    }

    /** Buffers PUTs of {@code bucket}'s keys starting with {@code prefix}, with fragments and journal in {@code dir}. */
    public Builder writeBack(Path dir, String bucket, String prefix) {
      writeBackDir = dir;
      writeBackScope = bucket + "/" + prefix;
      return this;
    }

    public NodeSettings build() {
      return new NodeSettings(index, gossipPorts, originDir, originEndpoint, blockBytes, dramBytes,
          peerTimeout, failureTimeout, hotReplicaBytes, immutableObjects, writeBackDir, writeBackScope);
    }
  }

  public String nodeId() {
    return "node-" + index;
  }

  /** These settings as {@link ClusterNodeProcess}'s arguments. */
  public List<String> arguments() {
    List<String> args = new ArrayList<>(List.of("--index=" + index,
        "--gossip-ports=" + gossipPorts.stream().map(String::valueOf).collect(Collectors.joining(",")),
        "--block-bytes=" + blockBytes, "--dram-bytes=" + dramBytes,
        "--peer-timeout-ms=" + peerTimeout.toMillis(), "--failure-timeout-ms=" + failureTimeout.toMillis(),
        "--hot-replica-bytes=" + hotReplicaBytes, "--immutable-objects=" + immutableObjects));
    args.add(originDir != null ? "--origin-dir=" + originDir : "--origin-endpoint=" + originEndpoint);
    if (writeBackDir != null) {
      args.add("--write-back-dir=" + writeBackDir);
      args.add("--write-back-scope=" + writeBackScope);
    }
    return args;
  }

  /** Settings from {@link #arguments()}'s form; an unknown or missing argument is an error. */
  public static NodeSettings parse(String[] args) {
    java.util.Map<String, String> values = new java.util.HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("Cannot start the cluster node: argument " + arg + " is not --name=value");
      }
      values.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    try {
      NodeSettings settings = new NodeSettings(Integer.parseInt(values.remove("index")),
          Arrays.stream(values.remove("gossip-ports").split(",")).map(Integer::valueOf).toList(),
          values.containsKey("origin-dir") ? Path.of(values.remove("origin-dir")) : null,
          values.containsKey("origin-endpoint") ? URI.create(values.remove("origin-endpoint")) : null,
          Integer.parseInt(values.remove("block-bytes")), Long.parseLong(values.remove("dram-bytes")),
          Duration.ofMillis(Long.parseLong(values.remove("peer-timeout-ms"))),
          Duration.ofMillis(Long.parseLong(values.remove("failure-timeout-ms"))),
          Long.parseLong(values.remove("hot-replica-bytes")),
          Boolean.parseBoolean(values.remove("immutable-objects")),
          values.containsKey("write-back-dir") ? Path.of(values.remove("write-back-dir")) : null,
          values.remove("write-back-scope"));
      if (!values.isEmpty()) {
        throw new IllegalArgumentException("Cannot start the cluster node: unknown arguments " + values.keySet());
      }
      return settings;
    } catch (NullPointerException | NumberFormatException e) {
      throw new IllegalArgumentException("Cannot start the cluster node: missing or malformed argument in "
          + Arrays.toString(args), e);
    }
  }
}
