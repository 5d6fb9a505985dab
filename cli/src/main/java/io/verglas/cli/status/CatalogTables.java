package io.verglas.cli.status;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The first tables of a catalog, for a page that must stay small whatever the catalog holds:
 * namespaces are walked breadth-first and the walk stops once one table more than the limit has
 * been seen (so the page can say there are more).
 */
final class CatalogTables {
  private CatalogTables() {}

  /** Up to {@code limit + 1} tables, sorted by name within what was walked. */
  static List<TableIdentifier> first(Catalog catalog, int limit) {
    List<TableIdentifier> found = new ArrayList<>();
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return found;
    }
    Deque<Namespace> pending = new ArrayDeque<>(namespaces.listNamespaces());
    while (!pending.isEmpty() && found.size() <= limit) {
      Namespace namespace = pending.poll();
      found.addAll(catalog.listTables(namespace));
      pending.addAll(namespaces.listNamespaces(namespace));
    }
    found.sort(Comparator.comparing(TableIdentifier::toString));
    return found.size() > limit + 1 ? found.subList(0, limit + 1) : found;
  }
}
