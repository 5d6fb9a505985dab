package io.verglas.ingest.validation;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.arrow.ListCells;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.validation.ColumnPlan.CheckedColumn;
import io.verglas.ingest.validation.ColumnPlan.NullRule;
import io.verglas.ingest.validation.ColumnPlan.ValueRule;
import io.verglas.protocol.IngestProtocol;
import java.math.BigDecimal;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Decides whether incoming Arrow data fits a table, before anything is written.
 *
 * <p>Per stream ({@link #plan}): every field must name a top-level table column
 * (case-sensitive; a near miss is pointed out) or be {@code _op} (Utf8); no name may repeat;
 * nested and dictionary-encoded fields are refused; each type must be accepted by
 * {@link ArrowSchemas#incompatibility} (the canonical type or a safe widening), decimals must be
 * 128-bit and timestamp zones valid; primary-key columns must be present. Optional columns may
 * be absent (null).
 *
 * <p>Per batch ({@link #validate}): the row and byte limits; {@code _op} is 'U', 'D' or null
 * (= 'U'); primary-key cells are never null; on upsert rows required cells are not null and
 * required columns are present (a delete row needs only its primary key; 'D' on a table without
 * a primary key is refused). Values must survive the conversion to the column's type exactly:
 * string and binary cells within the cell byte limit, strings valid UTF-8, decimals within the
 * column's precision, nanosecond times and timestamps in whole microseconds, second and
 * millisecond timestamps within the microsecond range, millisecond dates in whole days, times
 * within a day. The elements of list cells meet the same value rules, and on upsert rows an
 * element that the column requires is not null (each reported at its row, naming the element).
 * The fields of struct cells meet them too, and a required field of a non-null struct is not
 * null on upsert rows (reported as column {@code struct.field}).
 *
 * <p>Design: a batch is checked column by column, each column in one pass over its buffers
 * (skipped entirely when it has nothing to check, e.g. no nulls), which keeps clean batches
 * cheap; the report puts what was found back into row order (see {@link ValidationReport}).
 */
public final class BatchValidator {
  private static final int MAX_NAMES_LISTED = 20;
  private static final int MAX_VALUE_SHOWN = 20;
  private static final int OP_POSITION = -1;
  private static final int MISSING_POSITION = Integer.MAX_VALUE - 1;
  private static final long MICROS_PER_DAY = 86_400_000_000L;
  private static final long MILLIS_PER_DAY = 86_400_000L;
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
    List<CheckedColumn> checked = new ArrayList<>();
    int opIndex = -1;
    Types.StructType columns = table.schema().asStruct();
    List<Field> fields = arrow.getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      String name = field.getName();
      Integer previous = seen.putIfAbsent(name, i);
      if (previous != null) {
        problems.add(Problem.atColumn(name, "appears more than once (fields " + previous
            + " and " + i + ")", RejectReason.SCHEMA));
        continue;
      }
      if (name.equals(IngestProtocol.OP_COLUMN)) {
        if (isUtf8(field.getType()) && field.getDictionary() == null) {
          opIndex = i;
        } else {
          problems.add(Problem.atColumn(name, "must be Utf8 ('U' or 'D') but got Arrow "
              + field.getType(), RejectReason.SCHEMA));
        }
        continue;
      }
      Types.NestedField column = columns.field(name);
      if (column == null) {
        problems.add(Problem.atColumn(name, unknownColumn(name, table), RejectReason.SCHEMA));
        continue;
      }
      Optional<String> problem = typeProblem(field, column.type());
      if (problem.isPresent()) {
        problems.add(Problem.atColumn(name, problem.get(), RejectReason.SCHEMA));
        continue;
      }
      NullRule nulls = table.isPrimaryKey(column) ? NullRule.ALWAYS
          : column.isRequired() ? NullRule.UPSERT : NullRule.NONE;
      if (column.type().isListType()) {
        addChecks(checked, new CheckedColumn(name, i, nulls, null, 0, false, null), null,
            column.type());
        Types.ListType list = column.type().asListType();
        addChecks(checked, new CheckedColumn(name, i, list.isElementRequired() ? NullRule.UPSERT
            : NullRule.NONE, null, 0, true, null), field.getChildren().get(0), list.elementType());
      } else if (column.type().isStructType()) {
        addChecks(checked, new CheckedColumn(name, i, nulls, null, 0, false, null), null,
            column.type());
        for (Field child : field.getChildren()) {
          Types.NestedField structField = column.type().asStructType().field(child.getName());
          addChecks(checked, new CheckedColumn(name + "." + child.getName(), i,
              structField.isRequired() ? NullRule.UPSERT : NullRule.NONE, null, 0, false,
              child.getName()), child, structField.type());
        }
      } else {
        addChecks(checked, new CheckedColumn(name, i, nulls, null, 0, false, null), field,
            column.type());
      }
    }
    List<String> missingRequired = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      if (!seen.containsKey(column.name())) {
        if (table.isPrimaryKey(column)) {
          problems.add(Problem.atColumn(column.name(), "primary key column is missing",
              RejectReason.NULL_KEY));
        } else if (column.isRequired()) {
          missingRequired.add(column.name());
        }
      }
    }
    return new ColumnPlan(table, opIndex, checked, missingRequired, problems);
  }

  /**
   * Adds the checks of one column, list elements or struct field ({@code part}, its values rule
   * and precision to be filled): its null rule, and the value rules of {@code field}'s Arrow type
   * (none for a null field).
   */
  private static void addChecks(List<CheckedColumn> checked, CheckedColumn part, Field field,
      Type type) {
    Set<ValueRule> values = field == null ? Set.of() : valueRules(field.getType());
    NullRule nulls = part.nulls();
    if (nulls == NullRule.NONE && values.isEmpty()) {
      return;
    }
    int precision = type instanceof Types.DecimalType decimal ? decimal.precision() : 0;
    for (ValueRule rule : values.isEmpty() ? Set.of(ValueRule.NONE) : values) {
      checked.add(new CheckedColumn(part.name(), part.vectorIndex(), nulls, rule, precision,
          part.elements(), part.structField()));
      nulls = NullRule.NONE; // one null check per column
    }
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
      boolean[] deletes = checkOps(batch, plan, report);
      for (CheckedColumn column : plan.checked()) {
        FieldVector vector = batch.getVector(column.vectorIndex());
        if (column.elements()) {
          checkElements(vector, column, deletes, report);
        } else if (column.structField() != null) {
          FieldVector field = ((StructVector) vector).getChild(column.structField());
          checkNulls(field, vector, column, deletes, report);
          checkValues(field, column, report);
        } else {
          checkNulls(vector, null, column, deletes, report);
          checkValues(vector, column, report);
        }
      }
      checkMissing(batch.getRowCount(), plan, deletes, report);
    }
    if (!report.isEmpty()) {
      throw new InvalidBatchException("Cannot write batch " + batchIndex + " to "
          + plan.table().identifier() + ": " + report.describe(), report.firstReason());
    }
  }

  private static Optional<String> typeProblem(Field field, Type column) {
    ArrowType type = field.getType();
    if (field.getDictionary() != null) {
      return Optional.of("dictionary-encoded columns are not supported; send plain " + column
          + " values");
    }
    if (column.isListType() && ArrowSchemas.isList(field)
        && column.asListType().elementType().isPrimitiveType()) {
      return typeProblem(field.getChildren().get(0), column.asListType().elementType())
          .map(problem -> "list element: " + problem);
    }
    if (column.isStructType() && type instanceof ArrowType.Struct) {
      return structProblem(field, column.asStructType());
    }
    if (type.isComplex() && column.isPrimitiveType()) {
      return Optional.of("nested Arrow type " + type + " is not supported: the column is "
          + column);
    }
    Optional<String> incompatibility = ArrowSchemas.incompatibility(field, column);
    if (incompatibility.isPresent()) {
      if (type instanceof ArrowType.Int i && !i.getIsSigned()) {
        return Optional.of(incompatibility.get() + " (unsigned integers are not accepted; "
            + "send signed ones)");
      }
      return Optional.of(incompatibility.get() + widening(column));
    }
    if (type instanceof ArrowType.Decimal decimal && decimal.getBitWidth() != 128) {
      return Optional.of("expected " + column + " as a 128-bit Arrow decimal but got "
          + decimal.getBitWidth() + "-bit Decimal(" + decimal.getPrecision() + ", "
          + decimal.getScale() + ")");
    }
    if (type instanceof ArrowType.Timestamp ts && ts.getTimezone() != null) {
      try {
        ZoneId.of(ts.getTimezone());
      } catch (DateTimeException e) {
        return Optional.of("invalid time zone '" + ts.getTimezone() + "' (use an IANA name "
            + "like 'UTC' or an offset like '+01:00')");
      }
    }
    return Optional.empty();
  }

  /** The struct's shape (field names, required fields), then each field's type as a column's. */
  private static Optional<String> structProblem(Field field, Types.StructType column) {
    Optional<String> shape = ArrowSchemas.incompatibility(field, column);
    if (shape.isPresent()) {
      return shape;
    }
    for (Field child : field.getChildren()) {
      Optional<String> problem = typeProblem(child, column.field(child.getName()).type());
      if (problem.isPresent()) {
        return Optional.of("struct field '" + child.getName() + "': " + problem.get());
      }
    }
    return Optional.empty();
  }

  /** The safe widenings a column accepts, to say what would have worked. */
  private static String widening(Type column) {
    switch (column.typeId()) {
      case INTEGER: return " (accepted: Int(8|16|32, signed))";
      case LONG: return " (accepted: Int(8|16|32|64, signed))";
      case FLOAT: return " (accepted: FloatingPoint(SINGLE))";
      case DOUBLE: return " (accepted: FloatingPoint(SINGLE|DOUBLE))";
      default: return "";
    }
  }

  private static Set<ValueRule> valueRules(ArrowType type) {
    Set<ValueRule> rules = EnumSet.noneOf(ValueRule.class);
    if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
      rules.add(ValueRule.CELL_BYTES);
      rules.add(ValueRule.UTF8);
    } else if (type instanceof ArrowType.Binary || type instanceof ArrowType.LargeBinary) {
      rules.add(ValueRule.CELL_BYTES);
    } else if (type instanceof ArrowType.Decimal) {
      rules.add(ValueRule.DECIMAL_PRECISION);
    } else if (type instanceof ArrowType.Timestamp ts) {
      if (ts.getUnit() == TimeUnit.NANOSECOND) {
        rules.add(ValueRule.WHOLE_MICROS);
      } else if (ts.getUnit() != TimeUnit.MICROSECOND) {
        rules.add(ValueRule.MICROS_RANGE);
      }
    } else if (type instanceof ArrowType.Time time) {
      rules.add(ValueRule.TIME_OF_DAY);
      if (time.getUnit() == TimeUnit.NANOSECOND) {
        rules.add(ValueRule.WHOLE_MICROS);
      }
    } else if (type instanceof ArrowType.Date date
        && date.getUnit() == org.apache.arrow.vector.types.DateUnit.MILLISECOND) {
      rules.add(ValueRule.WHOLE_DAYS);
    }
    return rules;
  }

  private void checkLimits(VectorSchemaRoot batch, ValidationReport report) {
    int rows = batch.getRowCount();
    if (rows > limits.maxRows()) {
      report.add(Problem.ofBatch("batch has " + rows + " rows but at most " + limits.maxRows()
          + " are allowed; split it", RejectReason.BATCH_TOO_LARGE));
    }
    long bytes = 0;
    for (FieldVector vector : batch.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    if (bytes > limits.maxBytes()) {
      report.add(Problem.ofBatch("batch has " + bytes + " bytes of Arrow buffers but at most "
          + limits.maxBytes() + " are allowed; split it", RejectReason.BATCH_TOO_LARGE));
    }
  }

  /** Checks {@code _op}; returns which rows are deletes, or null when none are. */
  private static boolean[] checkOps(VectorSchemaRoot batch, ColumnPlan plan,
      ValidationReport report) {
    if (plan.opIndex() < 0) {
      return null;
    }
    FieldVector op = batch.getVector(plan.opIndex());
    boolean appendOnly = plan.table().primaryKey().isEmpty();
    Listing listing = new Listing(report, OP_POSITION);
    boolean[] deletes = null;
    int rows = batch.getRowCount();
    for (int row = 0; row < rows; row++) {
      if (op.isNull(row)) {
        continue;
      }
      byte code = singleByte(op, row);
      if (code == 'D') {
        if (deletes == null) {
          deletes = new boolean[rows];
        }
        deletes[row] = true;
        if (appendOnly) {
          listing.add(Problem.atRow(row, IngestProtocol.OP_COLUMN, "'D' (delete) needs a "
              + "primary key but " + plan.table().identifier() + " is append-only",
              RejectReason.INVALID_OP));
        }
      } else if (code != 'U') {
        listing.add(Problem.atRow(row, IngestProtocol.OP_COLUMN, "invalid value '"
            + shorten(opText(op, row)) + "' (expected 'U', 'D' or null)", RejectReason.INVALID_OP));
      }
    }
    listing.finish();
    return deletes;
  }

  /** Nulls against the column's rule, except where the {@code parent} struct (if any) is null. */
  private static void checkNulls(FieldVector vector, FieldVector parent, CheckedColumn column,
      boolean[] deletes, ValidationReport report) {
    if (column.nulls() == NullRule.NONE || vector.getNullCount() == 0) {
      return;
    }
    boolean key = column.nulls() == NullRule.ALWAYS;
    Listing listing = new Listing(report, column.vectorIndex());
    int rows = vector.getValueCount();
    for (int row = 0; row < rows; row++) {
      if (vector.isNull(row) && (parent == null || !parent.isNull(row))
          && (key || deletes == null || !deletes[row])) {
        listing.add(Problem.atRow(row, column.name(), key ? "null in primary key column"
            : "null in required column", key ? RejectReason.NULL_KEY : RejectReason.NULL_REQUIRED));
      }
    }
    listing.finish();
  }

  private void checkValues(FieldVector vector, CheckedColumn column, ValidationReport report) {
    if (valuesFit(vector, column)) {
      return;
    }
    CharsetDecoder strict = strictDecoder(column);
    Listing listing = new Listing(report, column.vectorIndex());
    int rows = vector.getValueCount();
    for (int row = 0; row < rows; row++) {
      if (vector.isNull(row)) {
        continue;
      }
      String problem = cellProblem(vector, column, row, strict);
      if (problem != null) {
        listing.add(Problem.atRow(row, column.name(), problem, valueReason(column)));
      }
    }
    listing.finish();
  }

  /** Whether the values of {@code vector} surely meet the column's value rule, without a look at each. */
  private boolean valuesFit(FieldVector vector, CheckedColumn column) {
    return column.values() == ValueRule.NONE
        // no cell can be larger than all of them together
        || column.values() == ValueRule.CELL_BYTES
            && CellData.of(vector).bytes() <= limits.maxCellBytes()
        || column.values() == ValueRule.UTF8 && Utf8Cells.allAscii(vector);
  }

  /**
   * The element checks of a list column: per row (not null, and for nulls not a delete), the
   * first element that is null though required or breaks the value rule.
   */
  private void checkElements(FieldVector vector, CheckedColumn column, boolean[] deletes,
      ValidationReport report) {
    ListCells cells = ListCells.of(vector);
    FieldVector elements = cells.elements();
    boolean nulls = column.nulls() != NullRule.NONE && elements.getNullCount() > 0;
    boolean values = !valuesFit(elements, column);
    if (!nulls && !values) {
      return;
    }
    CharsetDecoder strict = strictDecoder(column);
    Listing listing = new Listing(report, column.vectorIndex());
    int rows = vector.getValueCount();
    for (int row = 0; row < rows; row++) {
      if (vector.isNull(row)) {
        continue;
      }
      boolean upsert = deletes == null || !deletes[row];
      int start = cells.start(row);
      for (int i = start, end = cells.end(row); i < end; i++) {
        if (elements.isNull(i)) {
          if (nulls && upsert) {
            listing.add(Problem.atRow(row, column.name(), "element " + (i - start) + " is null"
                + " but the list's elements are required", RejectReason.NULL_REQUIRED));
            break;
          }
          continue;
        }
        String problem = values ? cellProblem(elements, column, i, strict) : null;
        if (problem != null) {
          listing.add(Problem.atRow(row, column.name(), "element " + (i - start) + ": "
              + problem, valueReason(column)));
          break;
        }
      }
    }
    listing.finish();
  }

  /** The value rule's problem with a non-null cell, or null; {@code strict} decodes UTF-8 rules. */
  private String cellProblem(FieldVector vector, CheckedColumn column, int row,
      CharsetDecoder strict) {
    return strict != null ? Utf8Cells.problem(vector, row, strict)
        : valueProblem(vector, column, row);
  }

  /** The decoder {@link #cellProblem} checks UTF-8 with, for a column with that rule; else null. */
  private static CharsetDecoder strictDecoder(CheckedColumn column) {
    return column.values() == ValueRule.UTF8 ? Utf8Cells.strictDecoder() : null;
  }

  private static RejectReason valueReason(CheckedColumn column) {
    return column.values() == ValueRule.CELL_BYTES ? RejectReason.CELL_TOO_LARGE
        : RejectReason.VALUE;
  }

  private String valueProblem(FieldVector vector, CheckedColumn column, int row) {
    switch (column.values()) {
      case CELL_BYTES: {
        long length = ((VariableWidthFieldVector) vector).getValueLength(row);
        return length <= limits.maxCellBytes() ? null : "value has " + length
            + " bytes but at most " + limits.maxCellBytes() + " are allowed per cell";
      }
      case DECIMAL_PRECISION: {
        BigDecimal value = ((DecimalVector) vector).getObject(row);
        return value.signum() == 0 || value.precision() <= column.precision() ? null
            : "value " + shorten(value.toPlainString()) + " has " + value.precision()
                + " digits but the column holds at most " + column.precision();
      }
      case WHOLE_MICROS: {
        long nanos = vector instanceof TimeNanoVector t ? t.get(row)
            : ((TimeStampVector) vector).get(row);
        return nanos % 1_000 == 0 ? null : "value " + nanos + " ns is not a whole number of "
            + "microseconds; the column stores microseconds, so precision would be lost";
      }
      case MICROS_RANGE: {
        TimeStampVector ts = (TimeStampVector) vector;
        long value = ts.get(row);
        TimeUnit unit = ((ArrowType.Timestamp) ts.getField().getType()).getUnit();
        long factor = unit == TimeUnit.SECOND ? 1_000_000L : 1_000L;
        return Math.abs(value) <= Long.MAX_VALUE / factor ? null : "timestamp " + value + " "
            + unit.name().toLowerCase(java.util.Locale.ROOT) + "s is out of range";
      }
      case WHOLE_DAYS: {
        long millis = ((DateMilliVector) vector).get(row);
        return millis % MILLIS_PER_DAY == 0 ? null : "date " + millis + " ms is not a whole "
            + "day (dates in milliseconds must be multiples of 86400000)";
      }
      case TIME_OF_DAY: {
        long micros = timeMicros(vector, row);
        return micros >= 0 && micros < MICROS_PER_DAY ? null
            : "time is outside one day [00:00, 24:00)";
      }
      default:
        return null;
    }
  }

  private static long timeMicros(FieldVector vector, int row) {
    if (vector instanceof TimeMicroVector v) {
      return v.get(row);
    } else if (vector instanceof TimeNanoVector v) {
      return Math.floorDiv(v.get(row), 1_000L);
    } else if (vector instanceof TimeMilliVector v) {
      return v.get(row) * 1_000L;
    }
    return ((TimeSecVector) vector).get(row) * 1_000_000L;
  }

  /** Required columns absent from the stream: reported once, at the first upsert row. */
  private static void checkMissing(int rows, ColumnPlan plan, boolean[] deletes,
      ValidationReport report) {
    List<String> missing = plan.missingRequired();
    if (missing.isEmpty()) {
      return;
    }
    for (int row = 0; row < rows; row++) {
      if (deletes == null || !deletes[row]) {
        for (String name : missing) {
          report.add(Problem.atRow(row, name, "required column is missing (only rows with "
              + "_op 'D' may omit it)", RejectReason.NULL_REQUIRED), MISSING_POSITION);
        }
        return;
      }
    }
  }

  /** 'U' or 'D' as a byte, or 0 for any other value. */
  private static byte singleByte(FieldVector op, int row) {
    if (op instanceof BaseVariableWidthVector v) {
      return v.getValueLength(row) == 1 ? v.getDataBuffer().getByte(v.getStartOffset(row)) : 0;
    }
    BaseLargeVariableWidthVector v = (BaseLargeVariableWidthVector) op;
    return v.getValueLength(row) == 1 ? v.get(row)[0] : 0;
  }

  private static String opText(FieldVector op, int row) {
    return new String(((VariableWidthFieldVector) op).get(row), StandardCharsets.UTF_8);
  }

  private static boolean isUtf8(ArrowType type) {
    return type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8;
  }

  private static String shorten(String value) {
    return value.length() <= MAX_VALUE_SHOWN ? value : value.substring(0, MAX_VALUE_SHOWN) + "…";
  }

  private static String unknownColumn(String name, IngestTable table) {
    for (Types.NestedField column : table.schema().columns()) {
      if (column.name().equalsIgnoreCase(name)) {
        return "unknown column; did you mean '" + column.name() + "'? (names are case-sensitive)";
      }
    }
    List<String> names = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      if (names.size() == MAX_NAMES_LISTED) {
        names.add("…");
        break;
      }
      names.add(column.name());
    }
    return "unknown column; " + table.identifier() + " has columns [" + String.join(", ", names)
        + "]";
  }

  /** Offers one check's first problems to the report and counts the rest. */
  private static final class Listing {
    private final ValidationReport report;
    private final int position;
    private int offered;
    private int more;

    Listing(ValidationReport report, int position) {
      this.report = report;
      this.position = position;
    }

    void add(Problem problem) {
      if (offered < ValidationReport.MAX_LISTED) {
        report.add(problem, position);
        offered++;
      } else {
        more++;
      }
    }

    void finish() {
      report.countMore(more);
    }
  }
}
