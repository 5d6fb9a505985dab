package io.verglas.ingest.validation;

import io.verglas.ingest.table.IngestTable;
import java.util.List;

/**
 * How the columns of one incoming stream map onto its table, decided once per stream from the
 * stream's Arrow schema: which vectors need null checks, where {@code _op} is, which required
 * columns are absent, and the column-level problems found.
 */
public final class ColumnPlan {
  /** A present column that must not hold nulls (on every row for keys, on upserts otherwise). */
  record CheckedColumn(String name, int vectorIndex, boolean primaryKey) {}

  private final IngestTable table;
  private final int opIndex;
  private final List<CheckedColumn> checked;
  private final List<String> missingRequired;
  private final ValidationReport problems;

  ColumnPlan(IngestTable table, int opIndex, List<CheckedColumn> checked,
      List<String> missingRequired, ValidationReport problems) {
    this.table = table;
    this.opIndex = opIndex;
    this.checked = List.copyOf(checked);
    this.missingRequired = List.copyOf(missingRequired);
    this.problems = problems;
  }

  public IngestTable table() {
    return table;
  }

  public boolean ok() {
    return problems.isEmpty();
  }

  public ValidationReport problems() {
    return problems;
  }

  int opIndex() {
    return opIndex;
  }

  List<CheckedColumn> checked() {
    return checked;
  }

  /** Required non-key columns the stream lacks: allowed only for rows that are deletes. */
  List<String> missingRequired() {
    return missingRequired;
  }
}
