package io.verglas.catalog;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Walks the tables of a namespace and of every namespace below it, breadth-first, one
 * namespace listing at a time, until the visitor says stop: what lists tables (Flight's
 * ListFlights, the admin status) never holds the whole catalog. The empty namespace of a catalog
 * with namespaces holds no tables; its children are walked.
 */
public final class CatalogWalk {
  private CatalogWalk() {}

  /** Calls {@code visitor} with each table under {@code root}; stops when it returns false. */
  public static void tables(Catalog catalog, Namespace root, Predicate<TableIdentifier> visitor) {
    Deque<Namespace> pending = new ArrayDeque<>();
    pending.add(root);
    while (!pending.isEmpty()) {
      Namespace namespace = pending.poll();
      if (!namespace.isEmpty() || !(catalog instanceof SupportsNamespaces)) {
        for (TableIdentifier id : catalog.listTables(namespace)) {
          if (!visitor.test(id)) {
            return;
          }
        }
      }
      if (catalog instanceof SupportsNamespaces namespaces) {
        pending.addAll(namespaces.listNamespaces(namespace));
      }
    }
  }

  /**
   * Calls {@code visitor} with at most {@code limit} tables under {@code root} that come after
   * {@code after} (null: from the first) in {@link CatalogOrder}, and returns how many it called
   * it with: one page of a listing that a caller continues after the page's last table. Each
   * namespace is listed once, and namespaces wholly before {@code after} not at all.
   */
  public static int page(Catalog catalog, Namespace root, TableIdentifier after, int limit,
      Consumer<TableIdentifier> visitor) {
    if (limit < 1) {
      throw new IllegalArgumentException("Cannot list tables: invalid page size " + limit);
    }
    int[] listed = {0};
    pageUnder(catalog, root, after, limit, visitor, listed);
    return listed[0];
  }

  private static void pageUnder(Catalog catalog, Namespace namespace, TableIdentifier after,
      int limit, Consumer<TableIdentifier> visitor, int[] listed) {
    if (!namespace.isEmpty() || !(catalog instanceof SupportsNamespaces)) {
      List<TableIdentifier> tables = new ArrayList<>(catalog.listTables(namespace));
      tables.sort(CatalogOrder.TABLES);
      for (TableIdentifier id : tables) {
        if (listed[0] == limit) {
          return;
        }
        if (after == null || CatalogOrder.compare(id, after) > 0) {
          visitor.accept(id);
          listed[0]++;
        }
      }
    }
    if (catalog instanceof SupportsNamespaces namespaces) {
      List<Namespace> children = new ArrayList<>(namespaces.listNamespaces(namespace));
      children.sort(Comparator.comparing(n -> n.level(n.length() - 1)));
      for (Namespace child : children) {
        if (listed[0] == limit) {
          return;
        }
        if (after == null || !CatalogOrder.allBefore(child, after)) {
          pageUnder(catalog, child, after, limit, visitor, listed);
        }
      }
    }
  }
}
