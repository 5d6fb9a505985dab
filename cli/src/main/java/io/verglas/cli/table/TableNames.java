package io.verglas.cli.table;

import org.apache.iceberg.catalog.TableIdentifier;

/** Parses {@code ns[.ns2].table} as typed on the command line. */
public final class TableNames {
  private TableNames() {}

  public static TableIdentifier parse(String name) {
    if (name == null || !name.contains(".") || name.startsWith(".") || name.endsWith(".")) {
      throw new IllegalArgumentException("Invalid table name: '" + name
          + "' (expected NAMESPACE.TABLE, e.g. demo.events)");
    }
    return TableIdentifier.parse(name);
  }
}
