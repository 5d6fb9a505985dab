package io.verglas.cache.s3;

import io.verglas.access.ScopedTokens;
import io.verglas.cache.ImmutableObjects;
import io.verglas.cache.protection.OriginProtection;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable settings of an {@link S3Server}. Built and validated by
 * {@code io.verglas.cache.CacheNode.Builder}; not meant to be assembled by hand.
 *
 * @param credentials access key → secret key
 * @param backgroundAccessKeys keys of background jobs: their reads record no heat, admit nothing
 * @param virtualHostDomain if set, {@code <bucket>.<domain>} hosts are virtual-host style
 * @param ioThreads event loop threads for connections (0: one per core)
 * @param nvmeDirectory directory of the NVMe block tier, or null for DRAM only
 * @param nvmeCapacityBytes ceiling of the NVMe tier (bytes of block files)
 * @param nvmeIoThreads threads reading and writing NVMe block files
 * @param immutableObjects objects whose ETag is never revalidated
 * @param metadataStoreCapacityBytes ceiling of the metadata store; 0 disables it
 * @param metadataStoreMaxEntryBytes largest metadata object or footer it keeps
 * @param originProtection concurrency limit, retries and circuit breaker for origin calls
 * @param scopedTokens verifies the session tokens of session credentials; null refuses them
 * @param sessionCacheEntries verified session tokens kept (see {@code VerifiedSessions}); 0: none
 */
public record S3ServerConfig(
    String host,
    int port,
    String region,
    Map<String, String> credentials,
    Set<String> backgroundAccessKeys,
    boolean allowAnonymous,
    Clock clock,
    Duration maxClockSkew,
    int blockSize,
    long dramCapacityBytes,
    long maxObjectSize,
    long spoolThresholdBytes,
    Path spoolDirectory,
    Duration metadataTtl,
    String virtualHostDomain,
    int ioThreads,
    Path nvmeDirectory,
    long nvmeCapacityBytes,
    int nvmeIoThreads,
    ImmutableObjects immutableObjects,
    long metadataStoreCapacityBytes,
    int metadataStoreMaxEntryBytes,
    OriginProtection originProtection,
    ScopedTokens scopedTokens,
    int sessionCacheEntries) {

  public S3ServerConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(region, "region");
    credentials = Map.copyOf(credentials);
    backgroundAccessKeys = Set.copyOf(backgroundAccessKeys);
    if (!credentials.keySet().containsAll(backgroundAccessKeys)) {
      throw new IllegalArgumentException("Cannot configure a background access key without its secret");
    }
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(maxClockSkew, "maxClockSkew");
    Objects.requireNonNull(spoolDirectory, "spoolDirectory");
    Objects.requireNonNull(metadataTtl, "metadataTtl");
    Objects.requireNonNull(immutableObjects, "immutableObjects");
    Objects.requireNonNull(originProtection, "originProtection");
  }

  @Override
  public String toString() {
    // Never print secrets.
    return "S3ServerConfig[host=" + host + ", port=" + port + ", region=" + region
        + ", accessKeys=" + credentials.keySet() + ", backgroundAccessKeys=" + backgroundAccessKeys
        + ", allowAnonymous=" + allowAnonymous + ", sessionTokens=" + (scopedTokens != null)
        + ", blockSize=" + blockSize + ", dramCapacityBytes=" + dramCapacityBytes
        + ", nvmeDirectory=" + nvmeDirectory + ", nvmeCapacityBytes=" + nvmeCapacityBytes + "]";
  }
}
