package io.verglas.ingest.validation;

import io.verglas.ingest.table.IngestTable;
import java.util.List;

/**
 * How the columns of one incoming stream map onto its table, decided once per stream from the
 * stream's Arrow schema (and again whenever the table's schema changes): which vectors need
 * which cell checks, where {@code _op} is, which required columns are absent, and the
 * column-level problems found.
 */
public final class ColumnPlan {
  /** Which nulls a column forbids. */
  enum NullRule {
    /** Nulls allowed. */
    NONE,
    /** Never null (primary-key columns). */
    ALWAYS,
    /** Not null on upsert rows; delete rows may leave it null (required non-key columns). */
    UPSERT
  }

  /** What the values of a column must satisfy beyond nulls, given its Arrow and table types. */
  enum ValueRule {
    NONE,
    /** String or binary cells: at most {@link BatchLimits#maxCellBytes()} bytes. */
    CELL_BYTES,
    /** String cells: valid UTF-8. */
    UTF8,
    /** Decimal cells: the unscaled value fits the column's precision. */
    DECIMAL_PRECISION,
    /** Nanosecond times or timestamps: whole microseconds (the column stores microseconds). */
    WHOLE_MICROS,
    /** Second or millisecond timestamps: convertible to microseconds without overflow. */
    MICROS_RANGE,
    /** Millisecond dates: whole days. */
    WHOLE_DAYS,
    /** Times: within one day. */
    TIME_OF_DAY
  }

  /**
   * A present column with cell checks; with {@code elements}, a list column whose checks apply
   * to the elements of its cells ({@code nulls}: of elements that are required); with a
   * {@code structField}, the checks of that field of a struct column (named
   * {@code column.field}), in the rows where the struct is not null.
   */
  record CheckedColumn(String name, int vectorIndex, NullRule nulls, ValueRule values,
      int precision, boolean elements, String structField) {}

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

  /** The Iceberg schema id the plan was made against. */
  public int schemaId() {
    return table.schemaId();
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
