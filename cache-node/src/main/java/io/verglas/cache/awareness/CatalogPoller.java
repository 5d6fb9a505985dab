package io.verglas.cache.awareness;

import io.verglas.catalog.MetadataLocations;
import io.verglas.table.TableIdentifiers;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the configured catalog for commits the change feed does not carry (those of other
 * engines: Spark, Trino, a plain Iceberg writer) and turns them into metadata walks.
 *
 * <p>Design: one thread, at minimum priority and never one of the node's I/O threads, runs a
 * poll, waits the poll interval, and polls again. A poll lists the catalog's namespaces (through
 * {@link SupportsNamespaces}, breadth first, at most {@value #MAX_NAMESPACE_DEPTH} levels deep and
 * {@value #MAX_NAMESPACES} namespaces; a catalog without namespaces is listed at its root), then
 * their tables, and loads each table to read its current metadata location. A location that
 * differs from the one {@link KnownTables} holds is a commit: it is recorded there and walked by
 * the {@link TableWarmer}, exactly as a commit event would be. The watcher records the
 * locations of the events it handles in the same {@link KnownTables}, so a commit the feed
 * delivered is not walked again when a poll finds it (and the other way round). The first poll
 * finds every table not yet known, which is the poller's startup walk.
 *
 * <p>With a {@link MetadataLocations} source (a JDBC catalog's table), a poll reads every table's
 * metadata location in one listing instead of loading each table: the cost of an idle table is
 * one row of that listing, with no load and no request to the origin.
 *
 * <p>Budget: each table load passes a {@link WarmingThrottle} of its own: it waits while client
 * requests queue at the origin (a load reads the metadata file through the node), and loads are
 * paced to at most {@code pollTablesPerSecond} on average. A poll considers at most as many
 * tables as {@link KnownTables} knows ({@link KnownTables#MAX_KNOWN}), so polling a catalog
 * larger than that cannot make it forget and re-walk tables in a cycle.
 *
 * <p>Failures: the catalog is asked for through a supplier on every poll, and null means it
 * does not exist yet (the local stack creates it after the node is bound); the poll is skipped.
 * A listing or load that fails is logged and counted, and the poll goes on with the next table
 * (a table dropped meanwhile is not a failure); nothing but {@link #close()} stops the thread.
 */
final class CatalogPoller implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogPoller.class);
  static final int MAX_NAMESPACE_DEPTH = 16;
  static final int MAX_NAMESPACES = 10_000;
  private static final String FIRST_METADATA_PREFIX = "00000-";

  private final Supplier<Catalog> catalog;
  private final Supplier<MetadataLocations> locations;
  private final Duration interval;
  private final WarmingThrottle throttle;
  private final int maxTables;
  private final TableWarmer warmer;
  private final KnownTables tables;
  private final AwarenessCounters counters;
  private final CountDownLatch closing = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean closed;
  private boolean cutLogged;

  CatalogPoller(Supplier<Catalog> catalog, Supplier<MetadataLocations> locations,
      Duration interval, WarmingThrottle throttle, int maxTables, TableWarmer warmer,
      KnownTables tables, AwarenessCounters counters) {
    this.catalog = catalog;
    this.locations = locations;
    this.interval = interval;
    this.throttle = throttle;
    this.maxTables = maxTables;
    this.warmer = warmer;
    this.tables = tables;
    this.counters = counters;
    this.thread = new Thread(this::run, "verglas-catalog-poller");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
  }

  void start() {
    thread.start();
  }

  private void run() {
    try {
      while (!closed) {
        try {
          poll();
        } catch (RuntimeException e) {
          failed("poll", e);
        }
        if (closing.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      // closing
    }
  }

  /** One poll of the catalog; returns the commits it found (0 when there is no catalog yet). */
  int poll() throws InterruptedException {
    Catalog current = catalog.get();
    if (current == null) {
      return 0;
    }
    MetadataLocations source = locations == null ? null : locations.get();
    int found = 0;
    if (source != null) {
      found = pollLocations(source);
    } else {
      for (TableIdentifier table : tables(current)) {
        if (closed) {
          throw new InterruptedException("closing");
        }
        found += check(current, table) ? 1 : 0;
      }
    }
    counters.polls.increment();
    return found;
  }

  /**
   * A poll from the catalog's own listing of metadata locations: no table is loaded, and only a
   * table whose location changed is walked (which reads its new metadata), so idle tables cost
   * a row of one listing each and nothing at the origin. A table whose location is its first
   * metadata file ({@link #isFirstMetadata}) is taken as created without data.
   */
  private int pollLocations(MetadataLocations source) throws InterruptedException {
    int[] seen = {0};
    int[] found = {0};
    try {
      source.forEach((identifier, location) -> {
        if (closed || seen[0] >= maxTables) {
          if (!closed) {
            cut(maxTables);
          }
          return;
        }
        seen[0]++;
        counters.tablesPolled.increment();
        found[0] += changed(TableIdentifiers.toString(identifier), location,
            isFirstMetadata(location)) ? 1 : 0;
      });
    } catch (RuntimeException e) {
      failed("list the catalog's metadata locations", e);
    }
    if (closed) {
      throw new InterruptedException("closing");
    }
    return found[0];
  }

  /** Loads the table (within the throttle); true if its metadata was new and is to be walked. */
  private boolean check(Catalog current, TableIdentifier identifier) throws InterruptedException {
    TableMetadata metadata;
    throttle.beforeRead();
    try {
      metadata = metadata(current.loadTable(identifier));
    } catch (NoSuchTableException e) {
      return false; // dropped since it was listed
    } catch (RuntimeException e) {
      failed("load table " + identifier, e);
      return false;
    } finally {
      throttle.afterRead(1);
    }
    counters.tablesPolled.increment();
    return metadata != null && changed(TableIdentifiers.toString(identifier),
        metadata.metadataFileLocation(), metadata.currentSnapshot() == null);
  }

  /**
   * Records the table's location; true (and the walk submitted) if it is a new commit. A table
   * first seen without data ({@code empty}: just created) is recorded (by hash) but not walked: its
   * metadata file is all a walk would read, and a catalog of many such tables would otherwise
   * fill the node's caches with them; its first commit is walked.
   */
  private boolean changed(String name, String location, boolean empty) {
    if (empty && tables.recordUnwalked(name, location)) {
      return false;
    }
    if (!tables.putIfChanged(name, location)) {
      return false;
    }
    counters.commitsPolled.increment();
    warmer.submit(name, location);
    return true;
  }

  /**
   * Whether a metadata location is a table's first metadata file, as Iceberg's metastore
   * catalogs (JDBC, Hive, Glue) name it: {@code 00000-<uuid>.metadata.json}, the metadata a
   * table is created with. A table created together with its first commit (create-table-as-select)
   * has data in that file too; it is warmed on its next commit, and read on demand until then.
   */
  static boolean isFirstMetadata(String location) {
    return location.startsWith(FIRST_METADATA_PREFIX, location.lastIndexOf('/') + 1);
  }

  private static TableMetadata metadata(Table table) {
    if (table instanceof HasTableOperations withOperations) {
      return withOperations.operations().current();
    }
    return null; // a metadata table or a view-like table: no metadata file of its own
  }

  /** The tables of every namespace, at most {@code maxTables}. */
  private List<TableIdentifier> tables(Catalog current) {
    List<TableIdentifier> found = new ArrayList<>();
    for (Namespace namespace : namespaces(current)) {
      try {
        for (TableIdentifier table : current.listTables(namespace)) {
          if (found.size() >= maxTables) {
            cut(found.size());
            return found;
          }
          found.add(table);
        }
      } catch (NoSuchNamespaceException e) {
        // dropped since it was listed
      } catch (RuntimeException e) {
        failed("list the tables of namespace " + namespace, e);
      }
    }
    return found;
  }

  private List<Namespace> namespaces(Catalog current) {
    if (!(current instanceof SupportsNamespaces withNamespaces)) {
      return List.of(Namespace.empty());
    }
    List<Namespace> found = new ArrayList<>();
    Deque<Namespace> pending = new ArrayDeque<>(List.of(Namespace.empty()));
    while (!pending.isEmpty() && found.size() < MAX_NAMESPACES) {
      Namespace parent = pending.pop();
      if (!parent.isEmpty()) {
        found.add(parent);
      }
      if (parent.length() < MAX_NAMESPACE_DEPTH) {
        pending.addAll(children(withNamespaces, parent));
      }
    }
    return found;
  }

  private List<Namespace> children(SupportsNamespaces current, Namespace parent) {
    try {
      return current.listNamespaces(parent);
    } catch (NoSuchNamespaceException e) {
      return List.of();
    } catch (RuntimeException e) {
      failed("list the namespaces of " + (parent.isEmpty() ? "the catalog" : "namespace " + parent), e);
      return List.of();
    }
  }

  private void cut(int limit) {
    if (!cutLogged) {
      cutLogged = true;
      LOG.warn("The catalog holds more than {} tables (the awareness table limit): polls consider"
          + " only the first {}", limit, limit);
    }
  }

  private void failed(String what, RuntimeException e) {
    counters.pollFailures.increment();
    if (!closed) {
      LOG.warn("Cannot {} while polling the catalog (retrying next poll): {}", what, e.toString());
    }
  }

  /** Stops polling; a load in progress is interrupted. */
  @Override
  public void close() {
    closed = true;
    closing.countDown();
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
