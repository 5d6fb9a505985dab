package io.verglas.cli.cachenode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.cluster.ClusterConfig;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code verglas cache-node}'s cluster flags: alone by default, a member with an id, a gossip port, seeds and the secret. */
class ClusterFlagsTest {
  private static final String SECRET = "sixteen-chars-or-more";

  @Test
  void withoutAnIdTheNodeWorksAloneAndOtherClusterFlagsAreRefused() {
    assertThat(parse().config("127.0.0.1", SECRET)).isNull();
    assertThatThrownBy(() -> parse("--cluster-seed", "h:1").config("127.0.0.1", SECRET))
        .hasMessage("Cannot use the --cluster-* flags without --cluster-node-id: the node works alone");
  }

  @Test
  void aMemberJoinsThroughItsSeedsOnItsHost() {
    ClusterConfig config = parse("--cluster-node-id", "cache-1", "--cluster-gossip-port", "7800",
        "--cluster-seed", "cache-1:7800", "--cluster-seed", "cache-2:7800", "--cluster-peer-port", "7801")
        .config("0.0.0.0", SECRET);

    assertThat(config.nodeId()).isEqualTo("cache-1");
    assertThat(config.bindHost()).isEqualTo("0.0.0.0");
    assertThat(config.peerPort()).isEqualTo(7801);
    assertThat(config.seeds()).containsExactly(InetSocketAddress.createUnresolved("cache-1", 7800),
        InetSocketAddress.createUnresolved("cache-2", 7800));
    assertThat(parse("--cluster-node-id", "a", "--cluster-gossip-port", "1", "--cluster-seed", "h:1",
        "--cluster-host", "10.0.0.5").config("0.0.0.0", SECRET).bindHost()).isEqualTo("10.0.0.5");
  }

  @Test
  void aMemberWithoutSecretOrSeedsOrWithAShortSecretIsRefused() {
    assertThatThrownBy(() -> parse("--cluster-node-id", "a", "--cluster-gossip-port", "1", "--cluster-seed", "h:1")
        .config("h", null)).hasMessageContaining(NodeKeys.CLUSTER_SECRET + " set");
    assertThatThrownBy(() -> parse("--cluster-node-id", "a", "--cluster-gossip-port", "1").config("h", SECRET))
        .hasMessageContaining("at least one --cluster-seed");
    assertThatThrownBy(() -> parse("--cluster-node-id", "a", "--cluster-gossip-port", "1", "--cluster-seed", "h:1")
        .config("h", "short")).hasMessage("Cannot join a cache cluster as a: Invalid cluster secret: shorter than 16 characters");
  }

  private static ClusterFlags parse(String... args) {
    ClusterFlags flags = new ClusterFlags();
    new CommandLine(flags).parseArgs(args);
    return flags;
  }
}
