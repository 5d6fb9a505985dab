package io.verglas.cache.awareness;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs metadata walks ({@link MetadataWalk}) one table at a time on a thread of its own.
 *
 * <p>Design: requests wait in a bounded map keyed by table, oldest first; a request for a table
 * that is already waiting replaces its metadata location (only the newest metadata matters), so
 * a burst of commits to one table costs one walk. When the map holds {@code capacity} tables,
 * requests for further tables are dropped and counted (their next commit, or a restart, warms
 * them). The thread runs at minimum priority and never on the node's I/O threads; each read it
 * starts passes the shared {@link WarmingThrottle}.
 *
 * <p>Budget: a table whose walk exceeds its byte budget is marked over budget and is not walked
 * again until its retry is due ({@link OverBudgetTables}: its requests until then are counted as
 * skipped); the stats list it. A later walk that fits re-admits it. A walk that fails otherwise
 * is logged and counted; the table is walked again on its next commit, after a gap in the feed,
 * or at the next start.
 */
final class TableWarmer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableWarmer.class);

  /** Runs one walk of a table's metadata; returns the bytes it occupies. */
  @FunctionalInterface
  interface Walker {
    long walk(String table, String metadataLocation) throws InterruptedException;
  }

  private final Walker walker;
  private final int capacity;
  private final AwarenessCounters counters;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<String, String> waiting = new LinkedHashMap<>();
  private final OverBudgetTables overBudget;
  private final Thread thread;
  private String walking;
  private boolean closed;

  /** Over-budget tables retried after {@link AwarenessConfig#DEFAULT_TABLE_BUDGET_RETRY}. */
  TableWarmer(Walker walker, int capacity, AwarenessCounters counters) {
    this(walker, capacity, counters,
        new OverBudgetTables(AwarenessConfig.DEFAULT_TABLE_BUDGET_RETRY.toNanos(), System::nanoTime));
  }

  TableWarmer(Walker walker, int capacity, AwarenessCounters counters, OverBudgetTables overBudget) {
    this.walker = walker;
    this.overBudget = overBudget;
    this.capacity = capacity;
    this.counters = counters;
    this.thread = new Thread(this::run, "verglas-metadata-warmer");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
  }

  void start() {
    thread.start();
  }

  /** Asks for a walk of the table's metadata at {@code metadataLocation}. */
  void submit(String table, String metadataLocation) {
    if (overBudget.skip(table)) {
      counters.walksSkippedOverBudget.increment();
      return;
    }
    lock.lock();
    try {
      if (waiting.containsKey(table)) {
        waiting.put(table, metadataLocation);
        counters.walksCoalesced.increment();
      } else if (waiting.size() >= capacity) {
        counters.walksDropped.increment();
        LOG.warn("Cannot queue a metadata walk of {}: {} tables are waiting already", table, capacity);
      } else {
        waiting.put(table, metadataLocation);
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Tables whose metadata exceeded the budget, sorted. */
  List<String> tablesOverBudget() {
    return overBudget.tables();
  }

  /** Tables waiting for a walk or being walked. */
  int pending() {
    lock.lock();
    try {
      return waiting.size() + (walking == null ? 0 : 1);
    } finally {
      lock.unlock();
    }
  }

  private void run() {
    try {
      while (true) {
        Map.Entry<String, String> next = take();
        if (next == null) {
          return;
        }
        walk(next.getKey(), next.getValue());
        done();
      }
    } catch (InterruptedException | MetadataWalk.WalkInterrupted e) {
      // closing
    }
  }

  private Map.Entry<String, String> take() throws InterruptedException {
    lock.lock();
    try {
      while (waiting.isEmpty() && !closed) {
        changed.await();
      }
      if (closed) {
        return null;
      }
      Iterator<Map.Entry<String, String>> oldest = waiting.entrySet().iterator();
      Map.Entry<String, String> first = oldest.next();
      Map.Entry<String, String> next = Map.entry(first.getKey(), first.getValue());
      oldest.remove();
      walking = next.getKey();
      return next;
    } finally {
      lock.unlock();
    }
  }

  private void done() {
    lock.lock();
    try {
      walking = null;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void walk(String table, String metadataLocation) throws InterruptedException {
    if (overBudget.skip(table)) {
      counters.walksSkippedOverBudget.increment();
      return;
    }
    try {
      long bytes = walker.walk(table, metadataLocation);
      counters.walksCompleted.increment();
      if (overBudget.fits(table)) {
        counters.tablesReadmitted.increment();
        LOG.info("The metadata of {} fits its budget again ({} bytes): it is warmed again", table, bytes);
      }
    } catch (TableBudget.OverBudgetException e) {
      overBudget.exceeded(table);
      LOG.warn("{}; it is not warmed until a walk after its retry wait fits (or raise the table budget)",
          e.getMessage());
    } catch (MetadataWalk.WalkInterrupted e) {
      throw e;
    } catch (RuntimeException e) {
      counters.walksFailed.increment();
      LOG.warn("Cannot warm the metadata of {} at {}: {}", table, metadataLocation, e.toString());
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
