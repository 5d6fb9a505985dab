package io.verglas.cache.cluster;

import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * One cache node of a cluster in a process of its own, for the kill drills: {@code INDEX
 * ORIGIN_DIR GOSSIP_PORTS} (comma-separated, one per node; this node binds the one at INDEX).
 * It reads the shared directory as its origin, prints {@code READY <s3 port> <admin port>} once
 * it has started (peer timeout 5 s: a loaded test machine must not turn a slow peer into an
 * origin read the test counts), and closes (leaving the cluster) when its standard input ends; a SIGKILL ends
 * it without a goodbye.
 */
public final class ClusterNodeProcess {
  private ClusterNodeProcess() {}

  public static void main(String[] args) throws IOException {
    int index = Integer.parseInt(args[0]);
    int[] ports = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(Path.of(args[1]));
        CacheNode node = CacheNode.builder()
            .credentials(TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY)
            .origin(origin)
            .blockSize(TestingCluster.BLOCK)
            .dramCapacityBytes(TestingCluster.CAPACITY)
            .metadataStoreCapacityBytes(0)
            .adminPort(0)
            .cluster(TestingPorts.config(index, ports).peerTimeout(Duration.ofSeconds(5)).build())
            .build()
            .start()) {
      System.out.println("READY " + node.endpoint().getPort() + " " + node.adminEndpoint().getPort());
      System.out.flush();
      while (System.in.read() >= 0) {
        // runs until the parent closes our standard input
      }
    }
  }
}
