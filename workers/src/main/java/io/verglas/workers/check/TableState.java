package io.verglas.workers.check;

import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One table as a run left it: its schema (its Arrow form: names, types, nullability) and its rows as
 * sorted strings, duplicates kept, so two states are equal exactly when the table holds the
 * same multiset of rows under the same schema.
 */
record TableState(String schema, List<String> rows) {
  static TableState of(VerglasClient client, TableIdentifier table) {
    String schema = client.tableSchema(table).getFields().toString(); // not its metadata (uuid)
    TableClient t = client.table(table);
    TableSnapshot snapshot = t.snapshot();
    if (snapshot == null) {
      return new TableState(schema, List.of());
    }
    QueryAnswer answer = t.rows(snapshot.snapshotId(), null);
    if (answer.truncated()) {
      throw new IllegalStateException("Cannot compare table " + table + ": it holds more rows"
          + " than one answer of the query endpoint; check with a smaller fixture");
    }
    List<String> rows = new ArrayList<>(answer.rows().size());
    for (Map<String, Object> row : answer.rows()) {
      rows.add(text(row));
    }
    rows.sort(null);
    return new TableState(schema, List.copyOf(rows));
  }

  /** What differs from {@code other}, in at most a few rows each way; null when equal. */
  String difference(TableState other) {
    if (!schema.equals(other.schema)) {
      return "the schema differs: " + schema + " vs " + other.schema;
    }
    if (rows.equals(other.rows)) {
      return null;
    }
    return rows.size() + " vs " + other.rows.size() + " rows; only in the first: "
        + sample(minus(rows, other.rows)) + "; only in the second: " + sample(minus(other.rows, rows));
  }

  private static List<String> minus(List<String> a, List<String> b) {
    List<String> rest = new ArrayList<>(a);
    b.forEach(rest::remove);
    return rest;
  }

  private static String sample(List<String> rows) {
    return rows.size() <= 3 ? rows.toString()
        : rows.subList(0, 3) + " and " + (rows.size() - 3) + " more";
  }

  private static String text(Map<String, Object> row) {
    StringJoiner text = new StringJoiner(", ", "{", "}");
    new TreeMap<>(row).forEach((column, value) -> text.add(column + "="
        + (value instanceof byte[] bytes ? Arrays.toString(bytes) : value)));
    return text.toString();
  }
}
