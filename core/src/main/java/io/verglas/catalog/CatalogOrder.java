package io.verglas.catalog;

import java.util.Comparator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The order in which {@link CatalogWalk#page} lists tables: depth first, a namespace's own
 * tables (by name) before the namespaces nested in it (by name). Total and independent of the
 * catalog's own listing order, so that a page can start after any identifier, even one dropped
 * since the previous page.
 */
public final class CatalogOrder {
  /** Tables before nested namespaces at the same level; names compare as strings. */
  public static final Comparator<TableIdentifier> TABLES = CatalogOrder::compare;

  private CatalogOrder() {}

  static int compare(TableIdentifier a, TableIdentifier b) {
    String[] x = a.namespace().levels();
    String[] y = b.namespace().levels();
    for (int i = 0; ; i++) {
      boolean xTable = i == x.length;
      boolean yTable = i == y.length;
      if (xTable || yTable) {
        if (xTable && yTable) {
          return a.name().compareTo(b.name());
        }
        return xTable ? -1 : 1; // a namespace's tables come before its nested namespaces
      }
      int c = x[i].compareTo(y[i]);
      if (c != 0) {
        return c;
      }
    }
  }

  /**
   * Whether every table under {@code namespace} comes at or before {@code after}: the walk can
   * skip the namespace without listing it.
   */
  static boolean allBefore(Namespace namespace, TableIdentifier after) {
    String[] n = namespace.levels();
    String[] a = after.namespace().levels();
    for (int i = 0; i < n.length; i++) {
      if (i == a.length) {
        return false; // after is a table of an ancestor: its nested namespaces come later
      }
      int c = n[i].compareTo(a[i]);
      if (c != 0) {
        return c < 0;
      }
    }
    return false; // after lies inside the namespace (or is one of its tables)
  }
}
