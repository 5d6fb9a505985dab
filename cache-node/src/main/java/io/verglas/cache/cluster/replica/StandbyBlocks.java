package io.verglas.cache.cluster.replica;

import io.verglas.cache.block.BlockId;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Standby copies a node keeps of other owners' hot blocks, within a byte budget: the least
 * recently used copy goes first when a new one needs room. Blocks are ETag-qualified, so a copy
 * is never stale, only unused. Synchronized: a put or get is a map operation against a peer
 * transfer of a whole block.
 */
public final class StandbyBlocks {
  private final long budgetBytes;
  private final LinkedHashMap<BlockId, byte[]> blocks = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  public StandbyBlocks(long budgetBytes) {
    if (budgetBytes < 0) {
      throw new IllegalArgumentException("Invalid standby budget: " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
  }

  /** The copy of {@code id}, or null. */
  public synchronized byte[] get(BlockId id) {
    return blocks.get(id);
  }

  public synchronized boolean contains(BlockId id) {
    return blocks.containsKey(id);
  }

  /** Keeps the copy, dropping least recently used ones to fit; false if it cannot fit at all. */
  public synchronized boolean put(BlockId id, byte[] data) {
    if (data.length > budgetBytes || blocks.containsKey(id)) {
      return false;
    }
    Iterator<Map.Entry<BlockId, byte[]>> oldest = blocks.entrySet().iterator();
    while (bytes + data.length > budgetBytes) {
      bytes -= oldest.next().getValue().length;
      oldest.remove();
    }
    blocks.put(id, data);
    bytes += data.length;
    return true;
  }

  public synchronized long bytes() {
    return bytes;
  }

  public synchronized int entries() {
    return blocks.size();
  }

  public long budgetBytes() {
    return budgetBytes;
  }
}
