package io.verglas.maintenance.source;

import io.verglas.events.FeedEvent;
import io.verglas.maintenance.job.MaintenanceConfig;
import io.verglas.table.TableIdentifiers;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the change feed from the split's sequence and emits one signal per interesting commit;
 * every sweep interval it also walks the catalog and emits a sweep signal per table.
 *
 * <p>Design: a page of events is buffered whole and handed out one per {@code pollNext}; the
 * split's sequence advances only past events already handed out (or skipped), so a checkpoint
 * never claims an event still in the buffer. The sweep is not checkpointed: after a restart it
 * simply starts again at the next interval.
 */
final class FeedSourceReader implements SourceReader<TableSignal, FeedSplit> {
  private static final Logger LOG = LoggerFactory.getLogger(FeedSourceReader.class);
  static final int PAGE = 1_000;

  private final MaintenanceConfig config;
  private final Deque<FeedEvent> events = new ArrayDeque<>();
  private final Deque<TableIdentifier> sweepTables = new ArrayDeque<>();
  private ScheduledExecutorService timer;
  private FeedClient feed;
  private Catalog catalog;
  private TableLister sweep;
  private long nextSequence = -1;
  private long nextPollAt;
  private long nextSweepAt;
  private CompletableFuture<Void> available = new CompletableFuture<>();

  FeedSourceReader(MaintenanceConfig config) {
    this.config = config;
  }

  @Override
  public void start() {
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "maintenance-feed-timer");
      t.setDaemon(true);
      return t;
    });
    feed = new FeedClient(config.feedUri(), config.feedToken(), PAGE);
    nextSweepAt = config.sweepInterval().isZero() ? Long.MAX_VALUE
        : System.currentTimeMillis() + config.sweepInterval().toMillis();
  }

  @Override
  public InputStatus pollNext(ReaderOutput<TableSignal> output) throws Exception {
    if (nextSequence < 0) {
      return InputStatus.NOTHING_AVAILABLE; // no split yet: addSplits completes the future
    }
    if (events.isEmpty() && sweepTables.isEmpty()) {
      refill();
    }
    FeedEvent event = events.poll();
    if (event != null) {
      nextSequence = event.feedSequence() + 1;
      if (SignalFilter.mayNeedWork(event)) {
        output.collect(new TableSignal(TableIdentifiers.toString(event.table()), false,
            event.feedSequence()));
      }
      return InputStatus.MORE_AVAILABLE;
    }
    TableIdentifier table = sweepTables.poll();
    if (table != null) {
      output.collect(new TableSignal(TableIdentifiers.toString(table), true, 0));
      return InputStatus.MORE_AVAILABLE;
    }
    scheduleWakeUp();
    return InputStatus.NOTHING_AVAILABLE;
  }

  private void refill() throws InterruptedException {
    long now = System.currentTimeMillis();
    if (now >= nextPollAt) {
      nextPollAt = now + config.pollInterval().toMillis();
      try {
        FeedClient.Page page = feed.read(nextSequence);
        events.addAll(page.events());
        if (page.events().isEmpty()) {
          // Only events of unknown types (or none): move past them. Otherwise the position
          // follows the events as they are emitted, and skipped ones at the page's end are read
          // again next time and moved past then.
          nextSequence = Math.max(nextSequence, page.nextSequence());
        }
      } catch (IOException e) {
        LOG.warn("Cannot read the change feed (will retry): {}", e.toString());
      }
    }
    if (events.isEmpty()) {
      refillSweep(now);
    }
  }

  private void refillSweep(long now) {
    if (sweep == null && now >= nextSweepAt) {
      if (catalog == null) {
        catalog = config.newCatalog();
      }
      sweep = new TableLister(catalog);
      nextSweepAt = now + config.sweepInterval().toMillis();
    }
    while (sweep != null && sweepTables.isEmpty()) {
      if (!sweep.hasNext()) {
        sweep = null;
        return;
      }
      sweepTables.addAll(sweep.next());
    }
  }

  private void scheduleWakeUp() {
    if (available.isDone()) {
      available = new CompletableFuture<>();
    }
    CompletableFuture<Void> pending = available;
    timer.schedule(() -> pending.complete(null), config.pollInterval().toMillis(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public List<FeedSplit> snapshotState(long checkpointId) {
    return nextSequence < 0 ? List.of() : List.of(new FeedSplit(nextSequence));
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<FeedSplit> splits) {
    for (FeedSplit split : splits) {
      nextSequence = split.nextSequence();
    }
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() throws Exception {
    if (timer != null) {
      timer.shutdownNow();
    }
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
  }
}
