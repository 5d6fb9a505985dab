package io.verglas.cache;

/**
 * Counters of one cache tier (cumulative since start, except the gauges bytes and entries).
 *
 * @param hits lookups this tier answered
 * @param misses lookups that reached this tier and did not find the entry
 * @param fills entries inserted into this tier
 * @param evictions entries removed to make room
 * @param admissionRejects entries offered to this tier that admission turned away
 * @param bytes bytes held now (for NVMe: bytes of block files on disk, including headers)
 * @param capacityBytes the tier's ceiling; {@code bytes} never exceeds it
 * @param entries entries held now
 */
public record TierStats(
    long hits,
    long misses,
    long fills,
    long evictions,
    long admissionRejects,
    long bytes,
    long capacityBytes,
    long entries) {

  /** The counters of a tier that is not configured. */
  public static final TierStats ABSENT = new TierStats(0, 0, 0, 0, 0, 0, 0, 0);
}
