package io.verglas.cache.block;

/**
 * A block a {@link BlockLoader} delivered: its bytes, and whether they are a replica (another
 * cache node's copy of a block that node owns) rather than a read of the origin. The block cache
 * places replicas only where they displace nothing (see {@link Admission#admitReplica}).
 */
public record BlockFill(byte[] data, boolean replica) {
  public static BlockFill fromOrigin(byte[] data) {
    return new BlockFill(data, false);
  }

  public static BlockFill replica(byte[] data) {
    return new BlockFill(data, true);
  }
}
