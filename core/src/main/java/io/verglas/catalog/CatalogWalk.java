package io.verglas.catalog;

import java.util.ArrayDeque;
import java.util.Deque;
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
}
