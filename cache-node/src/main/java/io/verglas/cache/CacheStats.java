package io.verglas.cache;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A snapshot of a cache node's counters (cumulative since start, except the DRAM gauges).
 *
 * @param hits block lookups answered by the DRAM tier
 * @param misses block lookups that started an origin fetch
 * @param coalescedMisses block lookups that joined a fetch already in flight (singleflight)
 * @param bytesServedFromCache response bytes that came from cached blocks
 * @param fills blocks inserted into the cache
 * @param evictions blocks evicted by the size ceiling
 * @param originRequests calls made to the origin (HEAD, range reads, writes, listings, ...)
 * @param dramBytes bytes held by the DRAM tier now
 * @param dramCapacityBytes the DRAM tier's ceiling
 */
public record CacheStats(
    long hits,
    long misses,
    long coalescedMisses,
    long bytesServedFromCache,
    long fills,
    long evictions,
    long originRequests,
    long dramBytes,
    long dramCapacityBytes) {

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
