package io.verglas.maintenance.orphan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The locations of the catalog's tables that live in the namespace named like a table
 * ({@code ns.t} for table {@code ns.t}) or in a namespace below it: with the catalogs' default
 * layout (the JDBC catalog's {@code <warehouse>/<levels...>/<name>}) exactly these tables have
 * locations under the table's own.
 *
 * <p>Why not every table of the catalog: finding a location means loading the table (reading
 * its metadata file), and a sweep removes orphans of every table, so walking the whole catalog
 * would cost a sweep the square of the table count. This walk costs one namespace query when
 * nothing nests, and otherwise a load per nested table, which is the work that protects them.
 * A table given an explicit location elsewhere that nests under another table is not found
 * here; {@link OrphanScope} keeps its files by finding its metadata files in the listing.
 */
final class NestedTables {
  private final Catalog catalog;

  NestedTables(Catalog catalog) {
    this.catalog = catalog;
  }

  /** Locations of the tables in the namespaces below {@code table}'s name, as they load. */
  List<String> locations(TableIdentifier table) {
    List<String> locations = new ArrayList<>();
    Deque<Namespace> pending = new ArrayDeque<>();
    pending.add(namespaceOf(table));
    while (!pending.isEmpty()) {
      Namespace namespace = pending.poll();
      try {
        for (TableIdentifier nested : catalog.listTables(namespace)) {
          load(table, nested, locations);
        }
        if (catalog instanceof SupportsNamespaces namespaces) {
          pending.addAll(namespaces.listNamespaces(namespace));
        }
      } catch (NoSuchNamespaceException e) {
        // Nothing nests here (or it was dropped while we walked): no table to protect.
      }
    }
    return locations;
  }

  private void load(TableIdentifier table, TableIdentifier nested, List<String> locations) {
    try {
      locations.add(catalog.loadTable(nested).location());
    } catch (NoSuchTableException e) {
      // Dropped meanwhile; its files, if not purged, are found by their metadata files.
    } catch (RuntimeException e) {
      throw new IllegalStateException("Cannot remove orphan files of " + table
          + ": cannot load table " + nested + ", whose files may lie under its location", e);
    }
  }

  /** The namespace whose default location is the table's location. */
  static Namespace namespaceOf(TableIdentifier table) {
    String[] levels = Arrays.copyOf(table.namespace().levels(),
        table.namespace().length() + 1);
    levels[levels.length - 1] = table.name();
    return Namespace.of(levels);
  }
}
