package io.verglas.bench.awareness;

import static io.verglas.bench.awareness.AwarenessBenchmark.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.verglas.cache.CacheNode;
import io.verglas.cache.CacheStats;
import io.verglas.cache.awareness.AwarenessConfig;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.events.CatalogEvent;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.EventPublisher;
import io.verglas.maintenance.compact.CompactionResult;
import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction headline with our own maintenance compaction ({@link Compactor}, the step the
 * maintenance job runs), end to end on one aware node: a partitioned table with two files per
 * partition, its three-query working set warmed through the node, then our compactor rewrites
 * every partition reading through the same node with the jobs' background key and publishes the
 * replace commit on the change feed. Once the node has walked it, the first query wave hits
 * prefetched blocks; the compactor's own reads (every column of every file) left no heat and
 * admitted nothing, so only the hot column chunks were prefetched.
 */
class MaintenanceCompactionPrefetchITCase {
  private static final String ACCESS_KEY = "client";
  private static final String SECRET_KEY = "client-secret";
  private static final String JOB_KEY = "maintenance";
  private static final String JOB_SECRET = "maintenance-secret";
  private static final long MIB = CacheNode.MIB;
  private static final int PARTITIONS = 3;

  @TempDir Path dir;

  @Test
  void theFirstQueryWaveAfterOurCompactionHitsPrefetchedBlocksAndTheCompactionAddsNoHeat() throws Exception {
    Files.createDirectories(dir.resolve("origin").resolve(BUCKET));
    ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), 1_000);
    HttpServer feedServer = AwarenessBenchmark.feedServer(feed);
    Path db = dir.resolve("catalog.db");
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(dir.resolve("origin"));
        CacheNode node = CacheNode.builder()
            .credentials(ACCESS_KEY, SECRET_KEY)
            .backgroundCredentials(JOB_KEY, JOB_SECRET)
            .origin(origin).blockSize((int) MIB).dramCapacityBytes(512 * MIB)
            .awareness(AwarenessConfig.builder()
                .feedUri(URI.create("http://127.0.0.1:" + feedServer.getAddress().getPort() + "/events"))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .build())
            .build().start()) {
      AwarenessBenchmark.await("the node following the feed", () -> node.stats().awareness().feedConnected(), node);
      Catalog jobs = AwarenessBenchmark.catalog(db, node.endpoint(), JOB_KEY, JOB_SECRET);
      try {
        WorkingSetTable data = new WorkingSetTable(PARTITIONS, 11_000, 100);
        Table table = WorkingSetTable.create(jobs);
        data.appendFilePerPartition(table);
        data.appendFilePerPartition(table);
        feed.append(AwarenessBenchmark.commitEvent(table));
        awaitWalks(node, 1);
        for (int wave = 0; wave < 2; wave++) {
          wave(db, node);
        }
        String heatBefore = heat(node);
        assertThat(heatBefore).contains("\"column\":\"a\"").contains("\"column\":\"c\"")
            .doesNotContain("\"column\":\"b\"");

        CompactionResult result = new Compactor(new MaintenanceEvents(publisher(feed)))
            .compact(TableIdentifier.of(WorkingSetTable.NAMESPACE, WorkingSetTable.NAME), table, policy());
        table.refresh();
        assertThat(table.currentSnapshot().operation()).as("our compaction: %s", result).isEqualTo("replace");
        // what the reads did to the tiers is BackgroundReadsTest's; here: they went through the node
        assertThat(node.stats().backgroundMisses()).as("the compactor read through the node").isPositive();
        assertThat(result.commits()).as("one replace per partition: %s", result).isEqualTo(PARTITIONS);
        awaitWalks(node, 1 + result.commits());

        assertThat(heat(node)).as("the compactor's reads are not the clients' heat")
            .doesNotContain("\"column\":\"b\"");
        long replacementBytes = 0;
        try (CloseableIterable<FileScanTask> live = table.newScan().planFiles()) {
          for (FileScanTask task : live) { // every live file is a replacement now
            replacementBytes += task.file().fileSizeInBytes();
          }
        }
        CacheStats before = node.stats();
        wave(db, node);
        CacheStats after = node.stats();
        long hits = after.hits() - before.hits();
        long misses = after.misses() - before.misses();
        double hitRate = (double) hits / Math.max(1, hits + misses);
        System.out.printf("First wave after our compaction: hit rate %.3f (%d hits, %d misses), "
            + "prefetched %d of %d replacement bytes%n", hitRate, hits, misses,
            after.awareness().prefetchBytes(), replacementBytes);
        assertThat(hitRate).as("hit rate with prefetch").isGreaterThanOrEqualTo(0.90);
        assertThat(after.awareness().prefetchBytes()).as("only the hot column chunks are prefetched")
            .isPositive().isLessThan(replacementBytes * 3 / 4);
      } finally {
        AwarenessBenchmark.closeQuietly(jobs);
      }
    } finally {
      feedServer.stop(0);
      feed.close();
    }
  }

  /** Small files are compacted once two share a partition. */
  private static MaintenancePolicy policy() {
    return MaintenancePolicy.builder().targetFileSizeBytes(256 * MIB).smallFileCountThreshold(2).build();
  }

  private static void wave(Path db, CacheNode node) throws Exception {
    Catalog client = AwarenessBenchmark.catalog(db, node.endpoint(), ACCESS_KEY, SECRET_KEY);
    try {
      for (WorkingSetTable.Query query : WorkingSetTable.WORKING_SET) {
        assertThat(WorkingSetTable.run(client, query)).isPositive();
      }
    } finally {
      AwarenessBenchmark.closeQuietly(client);
    }
  }

  private static void awaitWalks(CacheNode node, long events) {
    AwarenessBenchmark.await(events + " walks", () -> {
      var a = node.stats().awareness();
      return a.eventsHandled() >= events && a.walksPending() == 0 && a.walksCompleted() >= events;
    }, node);
  }

  private static String heat(CacheNode node) throws Exception {
    return new ObjectMapper().writeValueAsString(
        node.heat(WorkingSetTable.NAMESPACE + "." + WorkingSetTable.NAME, 20));
  }

  /** Publishes straight into the feed the node follows, as the job's HTTP publisher would. */
  private static EventPublisher publisher(ChangeFeed feed) {
    return new EventPublisher() {
      @Override
      public void publish(CatalogEvent event) {
        feed.append(event);
      }

      @Override
      public void close() {}
    };
  }
}
