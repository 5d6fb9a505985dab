package io.verglas.cache.cluster;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Settings of a cache node's membership in a cache cluster. Built with {@link #builder()}; each
 * setter may be called once (a second call is an IllegalStateException), values are checked as
 * they are set, cross-field rules in {@link Builder#build()}.
 *
 * @param nodeId the node's stable identity in placement (keep it across restarts: a node that
 *     comes back under its id gets its keys back)
 * @param bindHost address of the gossip and peer listeners
 * @param gossipPort membership (JGroups TCP) port; other nodes name it in their seeds
 * @param peerPort peer protocol port, 0 for a free one (it is advertised)
 * @param seeds gossip addresses of nodes to join through (this node's own may be among them)
 * @param secret shared by the cluster; authenticates every peer request
 * @param capacityBytes advertised cache capacity (placement weight); 0 = the node's DRAM + NVMe
 * @param peerTimeout longest a read waits for the owner before it reads the origin itself
 * @param failureTimeout silence after which a member is suspected and, once verified, removed
 * @param clusterName nodes join only clusters of the same name
 * @param warmupInterval after a view change, how long a new owner asks a key's previous owner
 *     for blocks it lacks before it reads the origin (warmth moves with ownership)
 * @param hotReplicas how many members after a key's owner in rendezvous order keep standby
 *     copies of its hot blocks (the members that own the key if the owner goes); 0 = none
 * @param hotReplicaBytes each node's budget for standby copies it keeps for other owners (heap,
 *     on top of its tiers); 0 = none
 */
public record ClusterConfig(String nodeId, String bindHost, int gossipPort, int peerPort,
    List<InetSocketAddress> seeds, String secret, long capacityBytes, Duration peerTimeout,
    Duration failureTimeout, String clusterName, Duration warmupInterval, int hotReplicas,
    long hotReplicaBytes) {
  public static final Duration DEFAULT_PEER_TIMEOUT = Duration.ofMillis(200);
  public static final Duration DEFAULT_FAILURE_TIMEOUT = Duration.ofSeconds(3);
  public static final Duration DEFAULT_WARMUP_INTERVAL = Duration.ofMinutes(5);
  public static final String DEFAULT_CLUSTER_NAME = "verglas-cache";
  public static final int MIN_SECRET_LENGTH = 16;
  public static final int DEFAULT_HOT_REPLICAS = 1;
  /**
   * Failure detection (JGroups FD_SOCK2) listens at the gossip port plus this offset, or at the
   * first free port of the {@value #FAILURE_DETECTION_PORT_RANGE} after it: open them between nodes.
   */
  public static final int FAILURE_DETECTION_PORT_OFFSET = 100;
  public static final int FAILURE_DETECTION_PORT_RANGE = 50;

  public ClusterConfig {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(bindHost, "bindHost");
    seeds = List.copyOf(seeds);
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(peerTimeout, "peerTimeout");
    Objects.requireNonNull(failureTimeout, "failureTimeout");
    Objects.requireNonNull(clusterName, "clusterName");
    Objects.requireNonNull(warmupInterval, "warmupInterval");
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String toString() {
    // Never print the secret.
    return "ClusterConfig[nodeId=" + nodeId + ", bindHost=" + bindHost + ", gossipPort=" + gossipPort
        + ", peerPort=" + peerPort + ", seeds=" + seeds + ", capacityBytes=" + capacityBytes
        + ", peerTimeout=" + peerTimeout + ", failureTimeout=" + failureTimeout
        + ", clusterName=" + clusterName + ", warmupInterval=" + warmupInterval
        + ", hotReplicas=" + hotReplicas + ", hotReplicaBytes=" + hotReplicaBytes + "]";
  }

  /** Builds a {@link ClusterConfig}; required: node id, gossip port, secret. */
  public static final class Builder {
    private String nodeId;
    private String bindHost;
    private Integer gossipPort;
    private Integer peerPort;
    private final List<InetSocketAddress> seeds = new ArrayList<>();
    private String secret;
    private Long capacityBytes;
    private Duration peerTimeout;
    private Duration failureTimeout;
    private String clusterName;
    private Duration warmupInterval;
    private Integer hotReplicas;
    private Long hotReplicaBytes;

    private Builder() {}

    public Builder nodeId(String value) {
      once(nodeId, "nodeId");
      nodeId = text(value, "nodeId");
      return this;
    }

    /** Default 127.0.0.1. */
    public Builder bindHost(String value) {
      once(bindHost, "bindHost");
      bindHost = text(value, "bindHost");
      return this;
    }

    public Builder gossipPort(int value) {
      once(gossipPort, "gossipPort");
      gossipPort = port(value, 1, "gossip port");
      return this;
    }

    /** Default 0: a free port. */
    public Builder peerPort(int value) {
      once(peerPort, "peerPort");
      peerPort = port(value, 0, "peer port");
      return this;
    }

    /** Adds a seed, {@code host:port} of a node's gossip listener. */
    public Builder seed(String hostPort) {
      String value = text(hostPort, "seed");
      int colon = value.lastIndexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw new IllegalArgumentException("Invalid seed: " + value + " (host:port)");
      }
      int port;
      try {
        port = Integer.parseInt(value.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Invalid seed: " + value + " (host:port)");
      }
      String host = value.substring(0, colon).replace("[", "").replace("]", "");
      seeds.add(InetSocketAddress.createUnresolved(host, port(port, 1, "seed port")));
      return this;
    }

    /** The cluster's shared secret, at least 16 characters. */
    public Builder secret(String value) {
      once(secret, "secret");
      if (value == null || value.length() < MIN_SECRET_LENGTH) {
        throw new IllegalArgumentException("Invalid cluster secret: shorter than "
            + MIN_SECRET_LENGTH + " characters");
      }
      secret = value;
      return this;
    }

    /** Advertised capacity in bytes; default the node's DRAM plus NVMe capacity. */
    public Builder capacityBytes(long value) {
      once(capacityBytes, "capacityBytes");
      if (value <= 0) {
        throw new IllegalArgumentException("Invalid capacity: " + value + " (must be > 0)");
      }
      capacityBytes = value;
      return this;
    }

    /** Default 200 ms. */
    public Builder peerTimeout(Duration value) {
      once(peerTimeout, "peerTimeout");
      peerTimeout = positive(value, "peer timeout");
      return this;
    }

    /** Default 3 s. */
    public Builder failureTimeout(Duration value) {
      once(failureTimeout, "failureTimeout");
      failureTimeout = positive(value, "failure timeout");
      if (value.toMillis() < 100) {
        throw new IllegalArgumentException("Invalid failure timeout: " + value + " (at least 100 ms)");
      }
      return this;
    }

    /** Default 5 minutes; zero turns warming from the previous owner off. */
    public Builder warmupInterval(Duration value) {
      once(warmupInterval, "warmupInterval");
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException("Invalid warmup interval: " + value);
      }
      warmupInterval = value;
      return this;
    }

    /** Default {@value #DEFAULT_HOT_REPLICAS}; 0 keeps no standby copies elsewhere. */
    public Builder hotReplicas(int value) {
      once(hotReplicas, "hotReplicas");
      if (value < 0 || value > 8) {
        throw new IllegalArgumentException("Invalid hot replica count: " + value + " (0..8)");
      }
      hotReplicas = value;
      return this;
    }

    /** Default 0: this node keeps no standby copies for other owners. */
    public Builder hotReplicaBytes(long value) {
      once(hotReplicaBytes, "hotReplicaBytes");
      if (value < 0) {
        throw new IllegalArgumentException("Invalid hot replica budget: " + value + " (must be >= 0)");
      }
      hotReplicaBytes = value;
      return this;
    }

    /** Default {@value #DEFAULT_CLUSTER_NAME}. */
    public Builder clusterName(String value) {
      once(clusterName, "clusterName");
      clusterName = text(value, "clusterName");
      return this;
    }

    public ClusterConfig build() {
      if (nodeId == null || gossipPort == null || secret == null) {
        throw new IllegalStateException("Cannot build a cluster config without nodeId, gossipPort and secret");
      }
      return new ClusterConfig(nodeId, bindHost != null ? bindHost : "127.0.0.1", gossipPort,
          peerPort != null ? peerPort : 0, seeds, secret, capacityBytes != null ? capacityBytes : 0,
          peerTimeout != null ? peerTimeout : DEFAULT_PEER_TIMEOUT,
          failureTimeout != null ? failureTimeout : DEFAULT_FAILURE_TIMEOUT,
          clusterName != null ? clusterName : DEFAULT_CLUSTER_NAME,
          warmupInterval != null ? warmupInterval : DEFAULT_WARMUP_INTERVAL,
          hotReplicas != null ? hotReplicas : DEFAULT_HOT_REPLICAS,
          hotReplicaBytes != null ? hotReplicaBytes : 0);
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set");
      }
    }

    private static String text(String value, String name) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value);
      }
      return value;
    }

    private static int port(int value, int min, String name) {
      if (value < min || value > 65535) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value + " (" + min + "..65535)");
      }
      return value;
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value);
      }
      return value;
    }
  }
}
