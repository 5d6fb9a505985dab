package io.verglas.cache.awareness;

import io.verglas.cache.iceberg.ObjectSource;
import io.verglas.cache.iceberg.ReadOnlyFileIO;
import io.verglas.cache.iceberg.TableFiles;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.parquet.ParquetFooter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Phaser;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.TableMetadata;

/**
 * One walk of one table's metadata into the node's caches, on the calling thread.
 *
 * <p>Design: Iceberg's own parsers read the metadata file, manifest list and manifests through a
 * {@link ReadOnlyFileIO} whose reads go through the node's caches ({@link CachedReads}); every
 * object they read, and every file the manifests list, is recorded as immutable before it is
 * resolved, so its ETag is cached for good. The Parquet footer of each data file is read as its
 * manifest entry is seen, with up to the throttle's concurrency in flight, so a large table's
 * file list is never held in memory. Each read passes the {@link WarmingThrottle}
 * (clients first, byte rate, concurrency) and the table's {@link TableBudget}: a metadata object
 * is reserved before it is read (its size is known from a HEAD), a footer is charged once read,
 * and a walk over budget stops with {@link TableBudget.OverBudgetException}.
 *
 * <p>The metadata chain is serial by nature (each level names the next), so it reads one object
 * at a time; only footers, which are independent, run concurrently. A footer read that fails
 * stops the walk (no further footers are started) and fails it once the others have completed.
 *
 * <p>Layouts: each data file's {@link FileLayout} (partition, and column chunk ranges parsed from
 * its footer) is collected for the mapper's index; a file the previous index knows is not parsed
 * again (data files are immutable). A footer that does not parse gives an opaque layout.
 * Collection stops at {@code maxChunks} column chunks (the index's own bound).
 */
final class MetadataWalk {
  private final String table;
  private final String metadataLocation;
  private final CachedReads reads;
  private final WarmingThrottle throttle;
  private final MetadataImmutables immutables;
  private final TableBudget budget;
  private final AwarenessCounters counters;
  /** Footer reads in flight: the walk ends when they have all completed. */
  private final Phaser footers = new Phaser(1);
  private final AtomicReference<RuntimeException> footerError = new AtomicReference<>();
  private final FileIndex known;
  private final long maxChunks;
  private final ConcurrentLinkedQueue<FileLayout> layouts = new ConcurrentLinkedQueue<>();
  private final AtomicLong collectedChunks = new AtomicLong();
  private TableMetadata metadata;

  MetadataWalk(String table, String metadataLocation, CachedReads reads, WarmingThrottle throttle,
      MetadataImmutables immutables, long budgetBytes, AwarenessCounters counters) {
    this(table, metadataLocation, reads, throttle, immutables, budgetBytes, counters, FileIndex.EMPTY, 0);
  }

  MetadataWalk(String table, String metadataLocation, CachedReads reads, WarmingThrottle throttle,
      MetadataImmutables immutables, long budgetBytes, AwarenessCounters counters, FileIndex known,
      long maxChunks) {
    this.table = table;
    this.known = known;
    this.maxChunks = maxChunks;
    this.metadataLocation = metadataLocation;
    this.reads = reads;
    this.throttle = throttle;
    this.immutables = immutables;
    this.budget = new TableBudget(table, budgetBytes);
    this.counters = counters;
  }

  /** Walks; returns the metadata bytes the table occupies. */
  long run() throws InterruptedException {
    try {
      metadata = TableFiles.walk(new ReadOnlyFileIO(new Source()), metadataLocation, this::visit);
    } catch (RuntimeException e) {
      footers.arriveAndDeregister();
      throw rethrown(e);
    }
    footers.awaitAdvanceInterruptibly(footers.arriveAndDeregister());
    if (footerError.get() != null) {
      throw footerError.get();
    }
    if (budget.exceeded()) {
      throw budget.exceededError();
    }
    return budget.used();
  }

  /** The walked metadata; after {@link #run}. */
  TableMetadata metadata() {
    return metadata;
  }

  /** The data files' layouts; after {@link #run}. */
  List<FileLayout> layouts() {
    return List.copyOf(layouts);
  }

  private void collect(FileLayout layout) {
    if (collectedChunks.addAndGet(layout.chunkCount()) <= maxChunks) {
      layouts.add(layout);
    }
  }

  private FileLayout layout(TableFiles.Referenced file, byte[] footer) {
    try {
      return FileLayout.parquet(table, file.partition(), file.location(), file.sizeBytes(),
          file.addedSequenceNumber(), ParquetFooter.parseSuffix(footer));
    } catch (IllegalArgumentException unreadable) {
      return FileLayout.opaque(table, file.partition(), file.location(), file.sizeBytes(),
          file.addedSequenceNumber());
    }
  }

  /** A file a manifest lists: immutable from now on; a Parquet data file's footer is read. */
  private void visit(TableFiles.Referenced file) {
    ObjectLocation at = ObjectLocation.parse(file.location());
    immutables.learn(at.bucket(), at.key());
    if (file.kind() != TableFiles.Kind.DATA) {
      return;
    }
    if (file.format() != FileFormat.PARQUET) {
      collect(FileLayout.opaque(table, file.partition(), file.location(), file.sizeBytes(),
          file.addedSequenceNumber()));
      return;
    }
    FileLayout prior = known.lookup(at.bucket(), at.key());
    if (budget.exceeded()) {
      throw budget.exceededError();
    }
    if (footerError.get() != null) {
      throw footerError.get();
    }
    beforeRead();
    footers.register();
    reads.resolve(at).thenCompose(meta -> reads.footer(at, meta)).whenComplete((fetched, error) -> {
      throttle.afterRead(fetched == null ? 0 : fetched.originBytes());
      if (fetched != null) {
        budget.charge(fetched.data().length);
        counted(fetched);
        collect(prior != null ? prior : layout(file, fetched.data()));
      } else {
        footerError.compareAndSet(null, unwrapped(error));
      }
      footers.arriveAndDeregister();
    });
  }

  private void beforeRead() {
    try {
      throttle.beforeRead();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WalkInterrupted();
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
      beforeRead();
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
      throw unwrapped(e.getCause());
    }
  }

  private static RuntimeException unwrapped(Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
    return cause instanceof RuntimeException re ? re : new IllegalStateException(cause.toString(), cause);
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
