package io.verglas.maintenance.source;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Walks every table of a catalog one namespace at a time, so a sweep over millions of tables
 * holds one namespace's names in memory, not all of them.
 */
final class TableLister {
  private final Catalog catalog;
  private final Deque<Namespace> pending = new ArrayDeque<>();

  TableLister(Catalog catalog) {
    this.catalog = catalog;
    if (!(catalog instanceof SupportsNamespaces)) {
      throw new UnsupportedOperationException("Cannot sweep catalog " + catalog.name()
          + ": it cannot list namespaces");
    }
    pending.add(Namespace.empty());
  }

  boolean hasNext() {
    return !pending.isEmpty();
  }

  /** The tables of the next namespace (possibly none); queues its child namespaces. */
  List<TableIdentifier> next() {
    Namespace namespace = pending.poll();
    pending.addAll(((SupportsNamespaces) catalog).listNamespaces(namespace));
    return namespace.isEmpty() ? List.of() : catalog.listTables(namespace);
  }
}
