package io.verglas.cache.awareness;

import io.verglas.cache.iceberg.ObjectSource;
import io.verglas.cache.iceberg.ReadOnlyFileIO;
import io.verglas.cache.iceberg.TableFiles;
import io.verglas.cache.origin.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.iceberg.FileFormat;

/**
 * One walk of one table's metadata into the node's caches, on the calling thread.
 *
 * <p>Design: Iceberg's own parsers read the metadata file, manifest list and manifests through a
 * {@link ReadOnlyFileIO} whose reads go through the node's caches ({@link CachedReads}); every
 * object they read, and every file the manifests list, is recorded as immutable before it is
 * resolved, so its ETag is cached for good. Then the Parquet footers of the data files are read
 * with up to the throttle's concurrency in flight. Each read passes the {@link WarmingThrottle}
 * (clients first, byte rate, concurrency) and the table's {@link TableBudget}: a metadata object
 * is reserved before it is read (its size is known from a HEAD), a footer is charged once read,
 * and a walk over budget stops with {@link TableBudget.OverBudgetException}.
 *
 * <p>The metadata chain is serial by nature (each level names the next), so it reads one object
 * at a time; only footers, which are independent, run concurrently.
 */
final class MetadataWalk {
  private final String metadataLocation;
  private final CachedReads reads;
  private final WarmingThrottle throttle;
  private final MetadataImmutables immutables;
  private final TableBudget budget;
  private final AwarenessCounters counters;

  MetadataWalk(String table, String metadataLocation, CachedReads reads, WarmingThrottle throttle,
      MetadataImmutables immutables, long budgetBytes, AwarenessCounters counters) {
    this.metadataLocation = metadataLocation;
    this.reads = reads;
    this.throttle = throttle;
    this.immutables = immutables;
    this.budget = new TableBudget(table, budgetBytes);
    this.counters = counters;
  }

  /** Walks; returns the metadata bytes the table occupies. */
  long run() throws InterruptedException {
    List<TableFiles.Referenced> files = new ArrayList<>();
    try {
      TableFiles.walk(new ReadOnlyFileIO(new Source()), metadataLocation, files::add);
    } catch (RuntimeException e) {
      throw rethrown(e);
    }
    List<ObjectLocation> parquet = new ArrayList<>();
    for (TableFiles.Referenced file : files) {
      ObjectLocation at = ObjectLocation.parse(file.location());
      immutables.learn(at.bucket(), at.key());
      if (file.kind() == TableFiles.Kind.DATA && file.format() == FileFormat.PARQUET) {
        parquet.add(at);
      }
    }
    readFooters(parquet);
    return budget.used();
  }

  private void readFooters(List<ObjectLocation> files) throws InterruptedException {
    List<Future<?>> started = new ArrayList<>();
    for (ObjectLocation at : files) {
      if (budget.exceeded()) {
        break;
      }
      throttle.beforeRead();
      started.add(reads.resolve(at).thenCompose(meta -> reads.footer(at, meta))
          .whenComplete((fetched, error) -> {
            throttle.afterRead(fetched == null ? 0 : fetched.originBytes());
            if (fetched != null) {
              budget.charge(fetched.data().length);
              counted(fetched);
            }
          }));
    }
    for (Future<?> footer : started) {
      await(footer);
    }
    if (budget.exceeded()) {
      throw budget.exceededError();
    }
  }

  private void counted(CachedReads.Fetched fetched) {
    counters.bytesWarmed.add(fetched.originBytes());
    counters.bytesWalked.add(fetched.data().length);
  }

  /** Metadata objects for Iceberg's parsers: learned immutable, throttled, budgeted. */
  private final class Source implements ObjectSource {
    @Override
    public long length(String location) {
      return meta(ObjectLocation.parse(location)).size();
    }

    @Override
    public byte[] read(String location) {
      ObjectLocation at = ObjectLocation.parse(location);
      immutables.learn(at.bucket(), at.key());
      ObjectMeta meta = meta(at);
      budget.reserve(meta.size(), location);
      try {
        throttle.beforeRead();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new WalkInterrupted();
      }
      CompletableFuture<CachedReads.Fetched> read = reads.object(at, meta)
          .whenComplete((fetched, error) -> throttle.afterRead(fetched == null ? 0 : fetched.originBytes()));
      CachedReads.Fetched fetched = awaitUnchecked(read);
      counted(fetched);
      return fetched.data();
    }

    private ObjectMeta meta(ObjectLocation at) {
      return awaitUnchecked(reads.resolve(at));
    }
  }

  private static <T> T awaitUnchecked(Future<T> future) {
    try {
      return await(future);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WalkInterrupted();
    }
  }

  private static <T> T await(Future<T> future) throws InterruptedException {
    try {
      return future.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause.toString(), cause);
    }
  }

  /** Our own signals come back out of Iceberg's parsers, possibly wrapped. */
  private static RuntimeException rethrown(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TableBudget.OverBudgetException || t instanceof WalkInterrupted) {
        return (RuntimeException) t;
      }
    }
    return e;
  }

  /** The walking thread was interrupted (the node is closing). */
  static final class WalkInterrupted extends RuntimeException {
    WalkInterrupted() {
      super("Metadata walk interrupted", null, false, false);
    }
  }
}
