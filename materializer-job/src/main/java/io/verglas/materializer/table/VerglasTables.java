package io.verglas.materializer.table;

import io.verglas.table.TableIdentifiers;
import io.verglas.table.VerglasTableProperties;
import java.io.Closeable;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Verglas tables one operator works with, loaded from the catalog by name, checked against
 * the table uuid the WAL recorded, and cached (least recently used first out, so a job serving
 * many tables keeps only the active ones).
 *
 * <p>A table that was dropped, dropped and re-created under the same name (another uuid), or is
 * not marked {@code verglas.managed=true} is reported as absent: its WAL rows have no table to
 * go to, and writing them into a foreign table would be worse.
 *
 * <p>Thread-safe: the committer loads the tables of one checkpoint from several threads (each
 * table from one thread at a time).
 */
public final class VerglasTables implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(VerglasTables.class);
  static final int CACHE_SIZE = 1024;

  private final Catalog catalog;
  private final Map<String, Table> byUuid = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Table> eldest) {
      return size() > CACHE_SIZE;
    }
  };

  public VerglasTables(Catalog catalog) {
    this.catalog = catalog;
  }

  /**
   * The name form carried through the job (in rows, deltas and checkpointed committables): the
   * {@link TableIdentifiers} string, which quotes a level holding a dot, so the identifier read
   * back from it has the WAL header's levels. For names without dots or backquotes it is the
   * levels joined by dots, as earlier builds carried them, so their state restores unchanged.
   */
  public static String name(List<String> levels) {
    return TableIdentifiers.toString(levels);
  }

  /** The identifier of a {@link #name} (never split at every dot: a table name may hold one). */
  public static TableIdentifier identifier(String name) {
    try {
      return TableIdentifiers.identifier(name);
    } catch (IllegalArgumentException e) {
      // Restored state of an earlier build, which joined levels unquoted, and a level began with
      // a backquote: read it as that build did, so the job restores.
      return TableIdentifier.parse(name);
    }
  }

  /** The current metadata of the managed table {@code uuid}, or empty with a logged reason. */
  public Optional<Table> load(String uuid, String name) {
    Table table = cached(uuid);
    if (table != null) {
      try {
        table.refresh();
      } catch (NoSuchTableException e) {
        forget(uuid);
        LOG.warn("Table {} ({}) was dropped: {}", name, uuid, e.getMessage());
        return Optional.empty();
      }
    } else {
      try {
        table = catalog.loadTable(identifier(name));
      } catch (NoSuchTableException e) {
        LOG.warn("Cannot find table {} ({}): {}", name, uuid, e.getMessage());
        return Optional.empty();
      }
    }
    if (!uuid.equals(table.uuid().toString())) {
      forget(uuid);
      LOG.warn("Cannot use table {}: its uuid is {} but the WAL was written for {}"
          + " (dropped and re-created?)", name, table.uuid(), uuid);
      return Optional.empty();
    }
    if (!"true".equalsIgnoreCase(table.properties().get(VerglasTableProperties.MANAGED))) {
      LOG.warn("Cannot use table {}: it is not marked {}=true", name, VerglasTableProperties.MANAGED);
      return Optional.empty();
    }
    synchronized (byUuid) {
      byUuid.put(uuid, table);
    }
    return Optional.of(table);
  }

  private Table cached(String uuid) {
    synchronized (byUuid) {
      return byUuid.get(uuid);
    }
  }

  private void forget(String uuid) {
    synchronized (byUuid) {
      byUuid.remove(uuid);
    }
  }

  /** How many tables are cached (at most {@value #CACHE_SIZE}; only tables that had rows). */
  public int size() {
    synchronized (byUuid) {
      return byUuid.size();
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (byUuid) {
      byUuid.clear();
    }
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
  }
}
