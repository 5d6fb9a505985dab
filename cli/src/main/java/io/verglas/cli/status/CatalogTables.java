package io.verglas.cli.status;

import io.verglas.catalog.CatalogWalk;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The first tables of a catalog, for a page that must stay small whatever the catalog holds:
 * the walk ({@link CatalogWalk}) stops once one table more than the limit has been seen (so the
 * page can say there are more).
 */
final class CatalogTables {
  private CatalogTables() {}

  /** Up to {@code limit + 1} tables, sorted by name within what was walked. */
  static List<TableIdentifier> first(Catalog catalog, int limit) {
    List<TableIdentifier> found = new ArrayList<>();
    CatalogWalk.tables(catalog, Namespace.empty(), id -> {
      found.add(id);
      return found.size() <= limit;
    });
    found.sort(Comparator.comparing(TableIdentifier::toString));
    return found;
  }
}
