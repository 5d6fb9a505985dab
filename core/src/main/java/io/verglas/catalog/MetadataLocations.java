package io.verglas.catalog;

import java.util.function.BiConsumer;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The current metadata location of every table of a catalog, read in one pass without loading
 * any table: what lets a poller find the tables that changed at the cost of one listing, however
 * many tables are idle. A catalog that cannot say this cheaply has no such source, and its
 * tables are loaded one by one.
 */
@FunctionalInterface
public interface MetadataLocations {
  /** Calls {@code table} with each table and its metadata location, in no particular order. */
  void forEach(BiConsumer<TableIdentifier, String> table);
}
