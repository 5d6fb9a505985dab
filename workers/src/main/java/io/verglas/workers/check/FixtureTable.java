package io.verglas.workers.check;

import io.verglas.table.TableIdentifiers;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;

/**
 * A table of a check's fixture: its schema, primary key and seed rows, and what the worker may
 * do with it.
 *
 * @param name as the worker's config names it ({@code ns.t}); each run gets a scratch copy
 * @param keys the primary key columns (empty: append-only)
 * @param output the output name the worker writes it under, or null
 * @param writable whether the worker may write it (an output always may)
 */
public record FixtureTable(String name, Schema schema, List<String> keys,
    List<Map<String, Object>> rows, String output, boolean writable) {
  public FixtureTable {
    TableIdentifiers.identifier(Objects.requireNonNull(name, "name")); // validates
    Objects.requireNonNull(schema, "schema");
    keys = List.copyOf(keys);
    rows = List.copyOf(rows);
    writable = writable || output != null;
  }
}
