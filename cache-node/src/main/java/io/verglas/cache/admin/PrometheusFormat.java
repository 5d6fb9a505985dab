package io.verglas.cache.admin;

import io.verglas.cache.AwarenessStats;
import io.verglas.cache.CacheStats;
import io.verglas.cache.TierStats;
import io.verglas.cache.cluster.ClusterStats;
import io.verglas.cache.writeback.WriteBackStats;
import java.util.Map;

/**
 * Renders {@link CacheStats} in the Prometheus text exposition format (version 0.0.4). Every
 * metric is prefixed {@code verglas_cache_}; per-tier figures carry a {@code tier} label
 * ({@code dram}, {@code nvme}, {@code metadata}). Counters end in {@code _total}.
 */
public final class PrometheusFormat {
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private PrometheusFormat() {}

  public static String render(CacheStats s) {
    return render(s, null);
  }

  /** As {@link #render(CacheStats)}, plus the cluster's figures ({@code cluster_*}) unless null. */
  public static String render(CacheStats s, ClusterStats cluster) {
    return render(s, cluster, null);
  }

  /** As {@link #render(CacheStats, ClusterStats)}, plus write-back's ({@code writeback_*}) unless null. */
  public static String render(CacheStats s, ClusterStats cluster, WriteBackStats writeBack) {
    StringBuilder out = new StringBuilder(4096);
    Map<String, TierStats> tiers = Map.of("dram", s.dram(), "nvme", s.nvme(), "metadata", s.metadata());
    String[] order = {"dram", "nvme", "metadata"};
    tierMetric(out, "hits_total", "counter", "Lookups answered by the tier.", tiers, order, TierStats::hits);
    tierMetric(out, "misses_total", "counter", "Lookups that reached the tier and missed.", tiers, order, TierStats::misses);
    tierMetric(out, "fills_total", "counter", "Entries inserted into the tier.", tiers, order, TierStats::fills);
    tierMetric(out, "evictions_total", "counter", "Entries removed to make room.", tiers, order, TierStats::evictions);
    tierMetric(out, "admission_rejects_total", "counter", "Entries turned away by admission.", tiers, order, TierStats::admissionRejects);
    tierMetric(out, "bytes", "gauge", "Bytes held by the tier.", tiers, order, TierStats::bytes);
    tierMetric(out, "capacity_bytes", "gauge", "The tier's byte ceiling.", tiers, order, TierStats::capacityBytes);
    tierMetric(out, "entries", "gauge", "Entries held by the tier.", tiers, order, TierStats::entries);
    metric(out, "block_hits_total", "counter", "Block lookups answered by DRAM or NVMe.", s.hits());
    metric(out, "block_misses_total", "counter", "Block lookups that fetched from the origin.", s.misses());
    metric(out, "block_coalesced_misses_total", "counter", "Block lookups that joined a fetch in flight.", s.coalescedMisses());
    metric(out, "block_background_misses_total", "counter", "Background jobs' block lookups loaded without admission.", s.backgroundMisses());
    metric(out, "block_fills_total", "counter", "Blocks fetched from the origin.", s.fills());
    metric(out, "served_from_cache_bytes_total", "counter", "Response bytes served from cache.", s.bytesServedFromCache());
    metric(out, "origin_requests_total", "counter", "Calls made to the origin.", s.originRequests());
    metric(out, "nvme_checksum_failures_total", "counter", "NVMe blocks dropped for a failed checksum.", s.nvmeChecksumFailures());
    metric(out, "nvme_recovered_blocks", "gauge", "NVMe blocks found on disk at startup.", s.nvmeRecoveredBlocks());
    metric(out, "nvme_dropped_writes_total", "counter", "NVMe writes skipped.", s.nvmeDroppedWrites());
    metric(out, "revalidations_total", "counter", "ETag revalidations of mutable objects.", s.revalidations());
    metric(out, "revalidations_not_modified_total", "counter", "Revalidations answered not modified.", s.revalidationsNotModified());
    metric(out, "origin_attempts_total", "counter", "Origin calls made, retries included.", s.origin().attempts());
    metric(out, "origin_retries_total", "counter", "Origin calls repeated after a transient failure.", s.origin().retries());
    metric(out, "origin_failures_total", "counter", "Origin calls failed after their last attempt.", s.origin().failures());
    metric(out, "origin_short_circuited_total", "counter", "Calls failed at once by the open circuit breaker.", s.origin().shortCircuited());
    metric(out, "origin_rejected_total", "counter", "Calls refused because too many were waiting.", s.origin().rejected());
    metric(out, "origin_in_flight", "gauge", "Origin calls running now.", s.origin().inFlight());
    metric(out, "origin_queued", "gauge", "Origin calls waiting for a slot now.", s.origin().queued());
    metric(out, "origin_circuit_open", "gauge", "1 while the circuit breaker is open or half-open.",
        s.origin().circuitState().equals("OPEN") || s.origin().circuitState().equals("HALF_OPEN") ? 1 : 0);
    if (s.awareness().enabled()) {
      awareness(out, s.awareness());
    }
    if (cluster != null) {
      cluster(out, cluster);
    }
    if (writeBack != null) {
      writeBack(out, writeBack);
    }
    return out.toString();
  }

  private static void awareness(StringBuilder out, AwarenessStats a) {
    metric(out, "feed_connected", "gauge", "1 while the change feed is followed.", a.feedConnected() ? 1 : 0);
    metric(out, "feed_last_sequence", "gauge", "Feed sequence of the last line handled.", a.lastSequence());
    metric(out, "feed_events_handled_total", "counter", "Change feed events applied.", a.eventsHandled());
    metric(out, "feed_unknown_events_skipped_total", "counter", "Events of unknown types skipped.", a.unknownEventsSkipped());
    metric(out, "feed_malformed_lines_skipped_total", "counter", "Feed lines that could not be read.", a.malformedLinesSkipped());
    metric(out, "feed_reconnects_total", "counter", "Reconnections to the change feed.", a.reconnects());
    metric(out, "feed_gaps_total", "counter", "Reconnections that found events missing.", a.gaps());
    metric(out, "poll_total", "counter", "Polls of the catalog that ran to the end.", a.polls());
    metric(out, "poll_commits_total", "counter", "Commits found by polling the catalog.", a.commitsPolled());
    metric(out, "poll_failures_total", "counter", "Catalog listings and loads by polls that failed.", a.pollFailures());
    metric(out, "warm_walks_total", "counter", "Metadata walks finished.", a.walksCompleted());
    metric(out, "warm_walks_failed_total", "counter", "Metadata walks failed.", a.walksFailed());
    metric(out, "warm_walks_pending", "gauge", "Tables waiting for or in a metadata walk.", a.walksPending());
    metric(out, "warm_origin_bytes_total", "counter", "Bytes warming read from the origin.", a.bytesWarmed());
    metric(out, "warm_tables_over_budget", "gauge", "Tables whose metadata exceeds the budget.", a.tablesOverBudget().size());
    metric(out, "warm_tables_readmitted_total", "counter", "Over-budget tables whose metadata fit the budget again.", a.tablesReadmitted());
    metric(out, "index_files", "gauge", "Data files the awareness index classifies reads of.", a.filesIndexed());
    metric(out, "heat_samples_total", "counter", "Classified column reads offered to the heat ledger.", a.heatSamples());
    metric(out, "heat_samples_dropped_total", "counter", "Heat samples dropped (buffer full).", a.heatSamplesDropped());
    metric(out, "heat_entries_restored", "gauge", "Heat ledger entries restored from the state directory at start.", a.heatEntriesRestored());
    metric(out, "replace_commits_total", "counter", "Compactions seen by metadata walks.", a.replaceCommits());
    metric(out, "prefetch_origin_bytes_total", "counter", "Bytes compaction prefetch read from the origin.", a.prefetchBytes());
  }

  private static void writeBack(StringBuilder out, WriteBackStats w) {
    metric(out, "writeback_dirty_objects", "gauge", "Acknowledged changes not yet on the origin.", w.dirtyObjects());
    metric(out, "writeback_dirty_bytes", "gauge", "Body bytes of acknowledged writes not yet on the origin.", w.dirtyBytes());
    gauge(out, "writeback_oldest_dirty_age_seconds", "Age of the oldest change not yet on the origin.",
        w.oldestDirtyAgeMillis() / 1000.0);
    metric(out, "writeback_acknowledged_total", "counter", "PUTs acknowledged from buffered fragments.", w.acknowledged());
    metric(out, "writeback_written_through_total", "counter", "PUTs in scope written through instead.", w.writtenThrough());
    metric(out, "writeback_propagated_total", "counter", "Buffered changes applied to the origin (rate() gives the propagation rate).", w.propagated());
    metric(out, "writeback_propagated_bytes_total", "counter", "Body bytes written to the origin by propagation.", w.propagatedBytes());
    metric(out, "writeback_propagation_failures_total", "counter", "Failed attempts to apply a buffered change.", w.propagationFailures());
    metric(out, "writeback_propagations_superseded_total", "counter", "Buffered changes retired without an upload: a later change of the key replaced them.", w.propagationsSuperseded());
    metric(out, "writeback_propagations_deferred_total", "counter", "Times a buffered change waited for an older change of its key on another node.", w.propagationsDeferred());
    metric(out, "writeback_propagation_conflicts", "gauge", "Buffered writes held: their key was written to the origin around the cache since.", w.propagationConflicts());
    metric(out, "writeback_fragments_repaired_total", "counter", "Fragments rewritten by the scrubber.", w.fragmentsRepaired());
    metric(out, "writeback_unrepairable_writes", "gauge", "Writes the last scrub found with fewer than k healthy fragments.", w.unrepairable());
    metric(out, "writeback_orphan_fragments_removed_total", "counter", "Fragments no journal record named, removed after the grace period.", w.orphansRemoved());
  }

  private static void cluster(StringBuilder out, ClusterStats c) {
    metric(out, "cluster_view_id", "gauge", "Id of the membership view this node holds.", c.viewId());
    metric(out, "cluster_members", "gauge", "Members in the view, this node included.", c.members());
    gauge(out, "cluster_own_share", "Share of keys this node owns in the view.", c.ownShare());
    metric(out, "cluster_capacity_bytes", "gauge", "Capacity this node advertises.", c.capacityBytes());
    metric(out, "cluster_peer_hits_total", "counter", "Blocks read from their owner.", c.peerHits());
    metric(out, "cluster_peer_misses_total", "counter", "Peer requests the owner answered without the block.", c.peerMisses());
    metric(out, "cluster_peer_fallbacks_total", "counter", "Peer requests that timed out or failed.", c.peerFallbacks());
    metric(out, "cluster_served_to_peers_total", "counter", "Blocks sent to peers.", c.servedToPeers());
    metric(out, "cluster_warmed_from_previous_owner_total", "counter", "Blocks taken from a key's previous owner.", c.warmedFromPreviousOwner());
    metric(out, "cluster_key_changes_sent_total", "counter", "Write announcements peers acknowledged.", c.keyChangesSent());
    metric(out, "cluster_key_changes_failed_total", "counter", "Write announcements that did not reach a peer.", c.keyChangesFailed());
    metric(out, "cluster_hot_replicas_offered_total", "counter", "Hot blocks offered to the next members in rendezvous order.", c.hotReplicasOffered());
    metric(out, "cluster_hot_replicas_taken_total", "counter", "Standby copies taken from their owners.", c.hotReplicasTaken());
    metric(out, "cluster_hot_replica_fills_total", "counter", "Block fills served from a standby copy.", c.hotReplicaFills());
    metric(out, "cluster_standby_bytes", "gauge", "Bytes of standby copies held for other owners.", c.standbyBytes());
  }

  private static void gauge(StringBuilder out, String name, String help, double value) {
    header(out, name, "gauge", help);
    out.append("verglas_cache_").append(name).append(' ').append(value).append('\n');
  }

  private static void tierMetric(StringBuilder out, String name, String type, String help,
      Map<String, TierStats> tiers, String[] order, java.util.function.ToLongFunction<TierStats> value) {
    header(out, name, type, help);
    for (String tier : order) {
      out.append("verglas_cache_").append(name).append("{tier=\"").append(tier).append("\"} ")
          .append(value.applyAsLong(tiers.get(tier))).append('\n');
    }
  }

  static void metric(StringBuilder out, String name, String type, String help, long value) {
    header(out, name, type, help);
    out.append("verglas_cache_").append(name).append(' ').append(value).append('\n');
  }

  private static void header(StringBuilder out, String name, String type, String help) {
    out.append("# HELP verglas_cache_").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE verglas_cache_").append(name).append(' ').append(type).append('\n');
  }
}
