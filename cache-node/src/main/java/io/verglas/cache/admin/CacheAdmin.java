package io.verglas.cache.admin;

import io.verglas.cache.CacheStats;
import io.verglas.cache.PurgeResult;
import io.verglas.cache.cluster.ClusterStats;
import io.verglas.cache.writeback.WriteBackStats;
import java.util.Map;

/** What the admin endpoint can see and do on a cache node. */
public interface CacheAdmin {
  CacheStats stats();

  /** Forgets everything cached under {@code bucket}/{@code prefix}. */
  PurgeResult purge(String bucket, String prefix);

  /** A JSON-able health report; its {@code "status"} is {@code "ok"} or {@code "degraded"}. */
  Map<String, Object> health();

  /**
   * A JSON-able report of the table's heat (hot partitions and their columns, at most
   * {@code limit} partitions), or null when the node runs without Iceberg awareness.
   */
  default Map<String, Object> heat(String table, int limit) {
    return null;
  }

  /**
   * A JSON-able report of the cache cluster (members with their capacity and ownership share,
   * peer counters), or null when the node works alone.
   */
  default Map<String, Object> cluster() {
    return null;
  }

  /** The cache cluster's figures for metrics, or null when the node works alone. */
  default ClusterStats clusterStats() {
    return null;
  }

  /** Write-back's figures for metrics, or null when the node writes every PUT through. */
  default WriteBackStats writeBackStats() {
    return null;
  }
}
