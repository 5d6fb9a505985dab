package io.verglas.arrow;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.function.LongUnaryOperator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads Arrow cells as the Java values of Iceberg's generic data model (Integer, Long, String,
 * LocalDate, LocalDateTime, OffsetDateTime, BigDecimal, UUID, ByteBuffer for binary, byte[] for
 * fixed, a {@code List} of such values for a list, a {@code GenericRecord} for a struct), applying the widenings that
 * {@link ArrowSchemas#incompatibility} allows. Callers check
 * compatibility first; a reader for an incompatible pair throws.
 */
public final class ArrowValues {
  private ArrowValues() {}

  /** A reader of one column: row index → value, or null for a null cell. */
  public static IntFunction<Object> reader(FieldVector vector, Type type) {
    IntFunction<Object> read = nonNullReader(vector, type);
    return row -> vector.isNull(row) ? null : read.apply(row);
  }

  private static IntFunction<Object> nonNullReader(FieldVector vector, Type type) {
    switch (type.typeId()) {
      case BOOLEAN: return row -> ((BitVector) vector).get(row) != 0;
      case INTEGER: return row -> (int) ((BaseIntVector) vector).getValueAsLong(row);
      case LONG: return row -> ((BaseIntVector) vector).getValueAsLong(row);
      case FLOAT: return row -> ((Float4Vector) vector).get(row);
      case DOUBLE:
        if (vector instanceof Float4Vector f4) {
          return row -> (double) f4.get(row);
        }
        return row -> ((Float8Vector) vector).get(row);
      case DATE: return dateReader(vector);
      case TIME: return timeReader(vector);
      case TIMESTAMP: return timestampReader((TimeStampVector) vector,
          ((org.apache.iceberg.types.Types.TimestampType) type).shouldAdjustToUTC());
      case STRING: return stringReader(vector);
      case UUID: return row -> uuid(((FixedSizeBinaryVector) vector).get(row));
      case FIXED: return row -> ((FixedSizeBinaryVector) vector).get(row);
      case BINARY: return row -> ByteBuffer.wrap(binary(vector, row));
      case DECIMAL: return row -> ((DecimalVector) vector).getObject(row)
          .setScale(((org.apache.iceberg.types.Types.DecimalType) type).scale());
      case LIST: return listReader(vector, type.asListType().elementType());
      case STRUCT: return structReader(vector, type.asStructType());
      default: throw new UnsupportedTypeException(type);
    }
  }

  /** A struct cell as a record of the struct type; a field the Arrow struct lacks reads null. */
  private static IntFunction<Object> structReader(FieldVector vector, Types.StructType type) {
    List<Types.NestedField> fields = type.fields();
    List<IntFunction<Object>> readers = new ArrayList<>(fields.size());
    for (Types.NestedField field : fields) {
      FieldVector child = vector.getChildrenFromFields().stream()
          .filter(candidate -> candidate.getName().equals(field.name())).findFirst().orElse(null);
      readers.add(child == null ? row -> null : reader(child, field.type()));
    }
    GenericRecord template = GenericRecord.create(type);
    return row -> {
      GenericRecord record = template.copy();
      for (int i = 0; i < readers.size(); i++) {
        record.set(i, readers.get(i).apply(row));
      }
      return record;
    };
  }

  /** A list cell (of a List, LargeList or FixedSizeList vector) as a list of its elements. */
  private static IntFunction<Object> listReader(FieldVector vector, Type elementType) {
    ListCells cells = ListCells.of(vector);
    IntFunction<Object> element = reader(cells.elements(), elementType);
    return row -> {
      int end = cells.end(row);
      List<Object> values = new ArrayList<>(end - cells.start(row));
      for (int i = cells.start(row); i < end; i++) {
        values.add(element.apply(i));
      }
      return values;
    };
  }

  private static IntFunction<Object> dateReader(FieldVector vector) {
    if (vector instanceof DateDayVector days) {
      return row -> LocalDate.ofEpochDay(days.get(row));
    }
    DateMilliVector millis = (DateMilliVector) vector;
    return row -> LocalDate.ofEpochDay(Math.floorDiv(millis.get(row), 86_400_000L));
  }

  private static IntFunction<Object> timeReader(FieldVector vector) {
    if (vector instanceof TimeMicroVector micros) {
      return row -> LocalTime.ofNanoOfDay(micros.get(row) * 1_000L);
    } else if (vector instanceof TimeMilliVector millis) {
      return row -> LocalTime.ofNanoOfDay(millis.get(row) * 1_000_000L);
    } else if (vector instanceof TimeNanoVector nanos) {
      return row -> LocalTime.ofNanoOfDay(nanos.get(row));
    }
    TimeSecVector seconds = (TimeSecVector) vector;
    return row -> LocalTime.ofSecondOfDay(seconds.get(row));
  }

  private static IntFunction<Object> timestampReader(TimeStampVector vector, boolean zoned) {
    TimeUnit unit = ((ArrowType.Timestamp) vector.getField().getType()).getUnit();
    LongUnaryOperator toMicros = toMicros(unit);
    if (zoned) {
      return row -> OffsetDateTime.ofInstant(instant(toMicros.applyAsLong(vector.get(row))),
          ZoneOffset.UTC);
    }
    return row -> LocalDateTime.ofInstant(instant(toMicros.applyAsLong(vector.get(row))),
        ZoneOffset.UTC);
  }

  /** Converts a timestamp in {@code unit} to microseconds; nanoseconds are truncated toward the past. */
  public static LongUnaryOperator toMicros(TimeUnit unit) {
    switch (unit) {
      case SECOND: return v -> Math.multiplyExact(v, 1_000_000L);
      case MILLISECOND: return v -> Math.multiplyExact(v, 1_000L);
      case MICROSECOND: return v -> v;
      case NANOSECOND: return v -> Math.floorDiv(v, 1_000L);
      default: throw new IllegalArgumentException("Unknown time unit: " + unit);
    }
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  private static IntFunction<Object> stringReader(FieldVector vector) {
    if (vector instanceof VarCharVector utf8) {
      return row -> new String(utf8.get(row), StandardCharsets.UTF_8);
    }
    LargeVarCharVector large = (LargeVarCharVector) vector;
    return row -> new String(large.get(row), StandardCharsets.UTF_8);
  }

  private static byte[] binary(FieldVector vector, int row) {
    if (vector instanceof VarBinaryVector v) {
      return v.get(row);
    } else if (vector instanceof LargeVarBinaryVector v) {
      return v.get(row);
    }
    return ((FixedSizeBinaryVector) vector).get(row);
  }

  static UUID uuid(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new UUID(buffer.getLong(), buffer.getLong());
  }
}
