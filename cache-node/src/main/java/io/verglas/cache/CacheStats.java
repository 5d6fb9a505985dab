package io.verglas.cache;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A snapshot of a cache node's counters (cumulative since start, except gauges).
 *
 * <p>The first fields summarize the block cache; {@code dram} and {@code nvme} break it down by
 * tier.
 *
 * @param hits block lookups answered by a tier (DRAM or NVMe)
 * @param misses block lookups that started an origin fetch
 * @param coalescedMisses block lookups that joined a fetch already in flight (singleflight)
 * @param backgroundMisses block lookups of background jobs' reads that missed DRAM and were
 *     loaded without being admitted (included in {@code misses} when they reached the origin)
 * @param bytesServedFromCache response bytes that came from cached blocks
 * @param fills blocks fetched from the origin into the cache path
 * @param evictions blocks evicted from either tier to make room
 * @param originRequests calls made to the origin (HEAD, range reads, writes, listings, ...)
 * @param dramBytes bytes held by the DRAM tier now
 * @param dramCapacityBytes the DRAM tier's ceiling
 * @param dram the DRAM block tier
 * @param nvme the NVMe block tier ({@link TierStats#ABSENT} when not configured)
 * @param metadata the metadata store (Iceberg metadata objects and Parquet footers)
 * @param nvmeChecksumFailures NVMe blocks dropped because their checksum or header failed
 * @param nvmeRecoveredBlocks NVMe blocks found on disk when the node started
 * @param nvmeDroppedWrites NVMe writes skipped (write queue full, I/O failure)
 * @param revalidations ETag lookups of mutable objects that asked the origin after the TTL
 * @param revalidationsNotModified revalidations answered "not modified"
 * @param origin retries, failures and circuit breaker state of the origin protection
 * @param awareness the catalog watcher and metadata warming ({@link AwarenessStats#ABSENT} when
 *     the node follows no change feed)
 */
public record CacheStats(
    long hits,
    long misses,
    long coalescedMisses,
    long backgroundMisses,
    long bytesServedFromCache,
    long fills,
    long evictions,
    long originRequests,
    long dramBytes,
    long dramCapacityBytes,
    TierStats dram,
    TierStats nvme,
    TierStats metadata,
    long nvmeChecksumFailures,
    long nvmeRecoveredBlocks,
    long nvmeDroppedWrites,
    long revalidations,
    long revalidationsNotModified,
    OriginStats origin,
    AwarenessStats awareness) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The snapshot as a JSON object with the component names as fields. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render cache stats as JSON", e);
    }
  }
}
