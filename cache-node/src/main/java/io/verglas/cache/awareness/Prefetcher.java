package io.verglas.cache.awareness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link PrefetchPlanner.Plan} into the block cache, on the calling (warmer) thread.
 *
 * <p>Each block read passes the {@link WarmingThrottle} that metadata warming passes: one byte
 * rate and one concurrency limit for all background reads, and both yield to client requests
 * waiting for the origin. A block the cache holds already costs nothing. A failed read is
 * counted and skipped (prefetch is an optimization: the block is read on demand instead); the
 * run waits for its reads before it returns, so a finished walk means a finished prefetch.
 */
final class Prefetcher {
  private static final Logger LOG = LoggerFactory.getLogger(Prefetcher.class);

  private final CachedReads reads;
  private final WarmingThrottle throttle;
  private final AwarenessCounters counters;

  Prefetcher(CachedReads reads, WarmingThrottle throttle, AwarenessCounters counters) {
    this.reads = reads;
    this.throttle = throttle;
    this.counters = counters;
  }

  void run(String table, PrefetchPlanner.Plan plan) throws InterruptedException {
    List<CompletableFuture<Void>> inFlight = new ArrayList<>();
    for (PrefetchPlanner.Block block : plan.blocks()) {
      throttle.beforeRead();
      ObjectLocation at = ObjectLocation.parse(block.location());
      inFlight.add(reads.resolve(at)
          .thenCompose(meta -> reads.warmBlock(at, meta, block.index()))
          .handle((originBytes, error) -> {
            throttle.afterRead(originBytes == null ? 0 : originBytes);
            if (error != null) {
              counters.prefetchFailures.increment();
              LOG.debug("Cannot prefetch block {} of {}: {}", block.index(), block.location(), error.toString());
            } else {
              counters.prefetchBlocks.increment();
              counters.prefetchBytes.add(originBytes);
            }
            return null;
          }));
    }
    for (CompletableFuture<Void> read : inFlight) {
      try {
        read.get();
      } catch (ExecutionException e) {
        // handled above
      }
    }
    if (!plan.blocks().isEmpty()) {
      LOG.info("Prefetched {} blocks ({} bytes) of {}'s replacement files; {} hot chunks over budget",
          plan.blocks().size(), plan.bytes(), table, plan.chunksOverBudget());
    }
  }
}
