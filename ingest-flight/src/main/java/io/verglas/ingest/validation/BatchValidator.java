package io.verglas.ingest.validation;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.ingest.table.IngestTable;
import io.verglas.protocol.IngestProtocol;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Types;

/**
 * Decides whether incoming Arrow data fits a table, before anything is written.
 *
 * <p>Per stream ({@link #plan}): every field must name a top-level table column
 * (case-sensitive) or be {@code _op} (Utf8); no name may repeat; each type must be accepted by
 * {@link ArrowSchemas#incompatibility} (safe widenings included); dictionary encoding is
 * refused; primary-key columns must be present. Optional columns may be absent (null).
 *
 * <p>Per batch ({@link #validate}): the row and byte limits; {@code _op} is 'U', 'D' or null
 * (= 'U'); primary-key cells are never null; on upsert rows required cells are not null and
 * required columns are present. A delete row needs only its primary key, so its other
 * required columns may be null or absent; 'D' on a table without a primary key is refused.
 *
 * <p>Problems are reported row by row, so the message names the first offending rows.
 */
public final class BatchValidator {
  private static final int MAX_NAMES_LISTED = 20;
  private static final int MAX_VALUE_SHOWN = 20;
  private final BatchLimits limits;

  public BatchValidator(BatchLimits limits) {
    this.limits = limits;
  }

  public BatchLimits limits() {
    return limits;
  }

  /** Matches a stream's schema with the table; check {@link ColumnPlan#ok()}. */
  public ColumnPlan plan(Schema arrow, IngestTable table) {
    ValidationReport problems = new ValidationReport();
    Map<String, Integer> seen = new HashMap<>();
    List<ColumnPlan.CheckedColumn> checked = new ArrayList<>();
    int opIndex = -1;
    Types.StructType columns = table.schema().asStruct();
    List<Field> fields = arrow.getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      String name = field.getName();
      Integer previous = seen.putIfAbsent(name, i);
      if (previous != null) {
        problems.add(Problem.atColumn(name, "appears more than once (fields " + previous
            + " and " + i + ")"));
        continue;
      }
      if (name.equals(IngestProtocol.OP_COLUMN)) {
        if (isUtf8(field.getType())) {
          opIndex = i;
        } else {
          problems.add(Problem.atColumn(name, "must be Utf8 ('U' or 'D') but got Arrow "
              + field.getType()));
        }
        continue;
      }
      Types.NestedField column = columns.field(name);
      if (column == null) {
        problems.add(Problem.atColumn(name, "unknown column; " + table.identifier()
            + " has " + columnNames(table)));
        continue;
      }
      if (field.getDictionary() != null) {
        problems.add(Problem.atColumn(name, "dictionary-encoded columns are not supported"));
        continue;
      }
      Optional<String> incompatibility =
          ArrowSchemas.incompatibility(field.getType(), column.type());
      if (incompatibility.isPresent()) {
        problems.add(Problem.atColumn(name, incompatibility.get()));
      } else if (column.isRequired()) {
        checked.add(new ColumnPlan.CheckedColumn(name, i, table.isPrimaryKey(column)));
      }
    }
    List<String> missingRequired = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      if (!seen.containsKey(column.name())) {
        if (table.isPrimaryKey(column)) {
          problems.add(Problem.atColumn(column.name(), "primary key column is missing"));
        } else if (column.isRequired()) {
          missingRequired.add(column.name());
        }
      }
    }
    return new ColumnPlan(table, opIndex, checked, missingRequired, problems);
  }

  /**
   * Checks one batch of a stream whose plan is ok.
   *
   * @throws InvalidBatchException naming the first problems
   */
  public void validate(VectorSchemaRoot batch, ColumnPlan plan, int batchIndex) {
    ValidationReport report = new ValidationReport();
    checkLimits(batch, report);
    if (report.isEmpty()) {
      checkRows(batch, plan, report);
    }
    if (!report.isEmpty()) {
      throw new InvalidBatchException("Cannot write batch " + batchIndex + " to "
          + plan.table().identifier() + ": " + report.describe());
    }
  }

  private void checkLimits(VectorSchemaRoot batch, ValidationReport report) {
    int rows = batch.getRowCount();
    if (rows > limits.maxRows()) {
      report.add(Problem.ofBatch("batch has " + rows + " rows but at most " + limits.maxRows()
          + " are allowed; split it"));
    }
    long bytes = 0;
    for (FieldVector vector : batch.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    if (bytes > limits.maxBytes()) {
      report.add(Problem.ofBatch("batch has " + bytes + " bytes of Arrow buffers but at most "
          + limits.maxBytes() + " are allowed; split it"));
    }
  }

  private void checkRows(VectorSchemaRoot batch, ColumnPlan plan, ValidationReport report) {
    FieldVector op = plan.opIndex() < 0 ? null : batch.getVector(plan.opIndex());
    List<ColumnPlan.CheckedColumn> withNulls = new ArrayList<>();
    List<FieldVector> vectors = new ArrayList<>();
    for (ColumnPlan.CheckedColumn column : plan.checked()) {
      FieldVector vector = batch.getVector(column.vectorIndex());
      if (vector.getNullCount() > 0) {
        withNulls.add(column);
        vectors.add(vector);
      }
    }
    List<String> missing = plan.missingRequired();
    if (op == null && withNulls.isEmpty() && missing.isEmpty()) {
      return;
    }
    boolean appendOnly = plan.table().primaryKey().isEmpty();
    boolean missingReported = false;
    int rows = batch.getRowCount();
    for (int row = 0; row < rows; row++) {
      boolean delete = false;
      if (op != null && !op.isNull(row)) {
        String value = opValue(op, row);
        if (value.equals(IngestProtocol.OP_DELETE)) {
          delete = true;
          if (appendOnly) {
            report.add(Problem.atRow(row, IngestProtocol.OP_COLUMN, "'D' (delete) needs a "
                + "primary key but " + plan.table().identifier() + " is append-only"));
          }
        } else if (!value.equals(IngestProtocol.OP_UPSERT)) {
          report.add(Problem.atRow(row, IngestProtocol.OP_COLUMN, "invalid value '"
              + shorten(value) + "' (expected 'U', 'D' or null)"));
        }
      }
      for (int c = 0; c < withNulls.size(); c++) {
        ColumnPlan.CheckedColumn column = withNulls.get(c);
        if ((column.primaryKey() || !delete) && vectors.get(c).isNull(row)) {
          report.add(Problem.atRow(row, column.name(), column.primaryKey()
              ? "null in primary key column" : "null in required column"));
        }
      }
      if (!delete && !missingReported && !missing.isEmpty()) {
        // Reported once, at the first upsert row: the whole column is absent.
        missingReported = true;
        for (String name : missing) {
          report.add(Problem.atRow(row, name, "required column is missing (only rows with "
              + "_op 'D' may omit it)"));
        }
      }
    }
  }

  private static String opValue(FieldVector op, int row) {
    byte[] bytes = op instanceof VarCharVector utf8
        ? utf8.get(row) : ((LargeVarCharVector) op).get(row);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static boolean isUtf8(ArrowType type) {
    return type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8;
  }

  private static String shorten(String value) {
    return value.length() <= MAX_VALUE_SHOWN ? value : value.substring(0, MAX_VALUE_SHOWN) + "…";
  }

  private static String columnNames(IngestTable table) {
    List<String> names = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      if (names.size() == MAX_NAMES_LISTED) {
        names.add("…");
        break;
      }
      names.add(column.name());
    }
    return "columns [" + String.join(", ", names) + "]";
  }
}
