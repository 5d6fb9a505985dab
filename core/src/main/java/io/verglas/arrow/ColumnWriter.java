package io.verglas.arrow;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.data.Record;

/**
 * Converts Java values into one Arrow column of the types Verglas tables use (the canonical
 * types of {@link ArrowSchemas#toArrow}): the SDK's rows, the query endpoint's Arrow answers.
 *
 * <p>Conversion and writing are separate steps so that a row with one bad value is rejected
 * before any of its cells is written. Besides the natural Java type of each column, ISO-8601 /
 * decimal strings are accepted for numbers, booleans, dates, times, timestamps, decimals and
 * UUIDs, because rows parsed from CSV or JSON lines arrive as strings. A list column (an Arrow
 * List) takes a {@code List} or an array (e.g. a {@code float[]} embedding) of its element's
 * values; a null element of a list whose elements are required is refused. A struct column (an
 * Arrow Struct) takes a {@code Map} of field name to value or an Iceberg {@code Record}; an
 * unknown field name, or a null or missing required field, is refused.
 */
public final class ColumnWriter {
  private static final long MICROS_PER_SECOND = 1_000_000L;

  @FunctionalInterface
  private interface Setter {
    void set(FieldVector vector, int row, Object value);
  }

  private final Field field;
  private final Function<Object, Object> converter;
  private final Setter setter;

  private ColumnWriter(Field field, Function<Object, Object> converter, Setter setter) {
    this.field = field;
    this.converter = converter;
    this.setter = setter;
  }

  public String name() {
    return field.getName();
  }

  /** The value as the setter wants it; throws IllegalArgumentException saying what was expected. */
  public Object convert(Object value) {
    return value == null ? null : converter.apply(value);
  }

  public void write(FieldVector vector, int row, Object converted) {
    if (converted == null) {
      setNull(vector, row);
    } else {
      setter.set(vector, row, converted);
    }
  }

  public static ColumnWriter forField(Field field) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.Bool) {
      return new ColumnWriter(field, ColumnWriter::toBoolean,
          (v, row, value) -> ((BitVector) v).setSafe(row, (Boolean) value ? 1 : 0));
    } else if (type instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == 32) {
      return new ColumnWriter(field, value -> Math.toIntExact(toLong(value, "an int")),
          (v, row, value) -> ((IntVector) v).setSafe(row, (Integer) value));
    } else if (type instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == 64) {
      return new ColumnWriter(field, value -> toLong(value, "a long"),
          (v, row, value) -> ((BigIntVector) v).setSafe(row, (Long) value));
    } else if (type instanceof ArrowType.FloatingPoint f
        && f.getPrecision() == FloatingPointPrecision.SINGLE) {
      return new ColumnWriter(field, value -> (float) toDouble(value),
          (v, row, value) -> ((Float4Vector) v).setSafe(row, (Float) value));
    } else if (type instanceof ArrowType.FloatingPoint f
        && f.getPrecision() == FloatingPointPrecision.DOUBLE) {
      return new ColumnWriter(field, ColumnWriter::toDouble,
          (v, row, value) -> ((Float8Vector) v).setSafe(row, (Double) value));
    } else if (type instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY) {
      return new ColumnWriter(field, ColumnWriter::toEpochDay,
          (v, row, value) -> ((DateDayVector) v).setSafe(row, (Integer) value));
    } else if (type instanceof ArrowType.Time t && t.getUnit() == TimeUnit.MICROSECOND) {
      return new ColumnWriter(field, ColumnWriter::toMicrosOfDay,
          (v, row, value) -> ((TimeMicroVector) v).setSafe(row, (Long) value));
    } else if (type instanceof ArrowType.Timestamp ts && ts.getUnit() == TimeUnit.MICROSECOND) {
      Function<Object, Object> converter = ts.getTimezone() == null
          ? ColumnWriter::localTimestampMicros : ColumnWriter::instantMicros;
      return new ColumnWriter(field, converter,
          (v, row, value) -> ((TimeStampVector) v).setSafe(row, (Long) value));
    } else if (type instanceof ArrowType.Utf8) {
      return new ColumnWriter(field, ColumnWriter::toUtf8,
          (v, row, value) -> ((VarCharVector) v).setSafe(row, (byte[]) value));
    } else if (type instanceof ArrowType.Binary) {
      return new ColumnWriter(field, ColumnWriter::toBytes,
          (v, row, value) -> ((VarBinaryVector) v).setSafe(row, (byte[]) value));
    } else if (type instanceof ArrowType.FixedSizeBinary fixed) {
      int width = fixed.getByteWidth();
      return new ColumnWriter(field, value -> toFixed(value, width),
          (v, row, value) -> ((FixedSizeBinaryVector) v).setSafe(row, (byte[]) value));
    } else if (type instanceof ArrowType.Decimal d && d.getBitWidth() == 128) {
      return new ColumnWriter(field, value -> toDecimal(value, d.getPrecision(), d.getScale()),
          (v, row, value) -> ((DecimalVector) v).setSafe(row, (BigDecimal) value));
    } else if (type instanceof ArrowType.List && field.getChildren().size() == 1) {
      return listWriter(field, forField(field.getChildren().get(0)));
    } else if (type instanceof ArrowType.Struct) {
      return structWriter(field, field.getChildren().stream().map(ColumnWriter::forField)
          .toList());
    }
    throw new IllegalArgumentException("Cannot build rows for column '" + field.getName()
        + "': Arrow type " + type + " is not supported");
  }

  private static ColumnWriter listWriter(Field field, ColumnWriter element) {
    boolean nullable = element.field.isNullable();
    return new ColumnWriter(field, value -> toList(value, element, nullable),
        (v, row, value) -> {
          ListVector list = (ListVector) v;
          List<?> values = (List<?>) value;
          int start = list.startNewValue(row);
          for (int i = 0; i < values.size(); i++) {
            element.write(list.getDataVector(), start + i, values.get(i));
          }
          list.endValue(row, values.size());
        });
  }

  private static ColumnWriter structWriter(Field field, List<ColumnWriter> fields) {
    return new ColumnWriter(field, value -> toStruct(value, fields),
        (v, row, value) -> {
          StructVector struct = (StructVector) v;
          Object[] values = (Object[]) value;
          struct.setIndexDefined(row);
          for (int i = 0; i < values.length; i++) {
            fields.get(i).write((FieldVector) struct.getChildByOrdinal(i), row, values[i]);
          }
        });
  }

  private static Object toStruct(Object value, List<ColumnWriter> fields) {
    Map<String, ?> named;
    if (value instanceof Map<?, ?> map) {
      named = map.entrySet().stream().collect(HashMap::new,
          (m, e) -> m.put(String.valueOf(e.getKey()), e.getValue()), HashMap::putAll);
    } else if (value instanceof Record record) {
      named = record.struct().fields().stream().collect(HashMap::new,
          (m, f) -> m.put(f.name(), record.getField(f.name())), HashMap::putAll);
    } else {
      throw mismatch("a Map of field names to values or a Record", value);
    }
    Object[] converted = new Object[fields.size()];
    int known = 0;
    for (int i = 0; i < converted.length; i++) {
      ColumnWriter field = fields.get(i);
      known += named.containsKey(field.name()) ? 1 : 0;
      Object item = named.get(field.name());
      if (item == null && !field.field.isNullable()) {
        throw new IllegalArgumentException("field '" + field.name() + "' is required");
      }
      try {
        converted[i] = field.convert(item);
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw new IllegalArgumentException("field '" + field.name() + "': " + e.getMessage(), e);
      }
    }
    if (known != named.size()) {
      throw new IllegalArgumentException("unknown fields in " + named.keySet() + " (the struct has "
          + fields.stream().map(ColumnWriter::name).toList() + ")");
    }
    return converted;
  }

  private static Object toList(Object value, ColumnWriter element, boolean nullable) {
    if (!(value instanceof List<?>) && !value.getClass().isArray()) {
      throw mismatch("a List or an array", value);
    }
    int size = value instanceof List<?> list ? list.size() : Array.getLength(value);
    List<Object> converted = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      Object item = value instanceof List<?> list ? list.get(i) : Array.get(value, i);
      if (item == null && !nullable) {
        throw new IllegalArgumentException("element " + i + " is null but the list's elements"
            + " are required");
      }
      try {
        converted.add(element.convert(item));
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw new IllegalArgumentException("element " + i + ": " + e.getMessage(), e);
      }
    }
    return converted;
  }

  private static void setNull(FieldVector vector, int row) {
    if (vector instanceof BaseFixedWidthVector fixed) {
      fixed.setNull(row);
    } else if (vector instanceof ListVector list) {
      list.setNull(row);
    } else if (vector instanceof StructVector struct) {
      struct.setNull(row);
    } else if (vector instanceof BaseVariableWidthVector variable) {
      variable.setNull(row);
    } else {
      throw new IllegalStateException("Cannot write null into "
          + vector.getClass().getSimpleName());
    }
  }

  private static Object toBoolean(Object value) {
    if (value instanceof Boolean b) {
      return b;
    }
    if (value instanceof String s) {
      if (s.equalsIgnoreCase("true")) {
        return true;
      } else if (s.equalsIgnoreCase("false")) {
        return false;
      }
    }
    throw mismatch("a Boolean or \"true\"/\"false\"", value);
  }

  private static long toLong(Object value, String expected) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigInteger big) {
      return big.longValueExact();
    }
    if (value instanceof String s) {
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        throw mismatch(expected, value);
      }
    }
    throw mismatch(expected + " (Integer, Long, Short, Byte or a decimal string)", value);
  }

  private static double toDouble(Object value) {
    if (value instanceof Number n && !(value instanceof BigDecimal)) {
      return n.doubleValue();
    }
    if (value instanceof BigDecimal d) {
      return d.doubleValue();
    }
    if (value instanceof String s) {
      try {
        return Double.parseDouble(s.trim());
      } catch (NumberFormatException e) {
        throw mismatch("a floating-point number", value);
      }
    }
    throw mismatch("a Number or a numeric string", value);
  }

  private static Object toEpochDay(Object value) {
    if (value instanceof LocalDate date) {
      return Math.toIntExact(date.toEpochDay());
    }
    if (value instanceof String s) {
      try {
        return Math.toIntExact(LocalDate.parse(s.trim()).toEpochDay());
      } catch (DateTimeParseException e) {
        throw mismatch("an ISO date (yyyy-MM-dd)", value);
      }
    }
    throw mismatch("a LocalDate or an ISO date string", value);
  }

  private static Object toMicrosOfDay(Object value) {
    LocalTime time;
    if (value instanceof LocalTime t) {
      time = t;
    } else if (value instanceof String s) {
      try {
        time = LocalTime.parse(s.trim());
      } catch (DateTimeParseException e) {
        throw mismatch("an ISO time (HH:mm:ss[.ffffff])", value);
      }
    } else {
      throw mismatch("a LocalTime or an ISO time string", value);
    }
    return time.toNanoOfDay() / 1_000L;
  }

  private static Object instantMicros(Object value) {
    Instant instant;
    if (value instanceof Instant i) {
      instant = i;
    } else if (value instanceof OffsetDateTime odt) {
      instant = odt.toInstant();
    } else if (value instanceof ZonedDateTime zdt) {
      instant = zdt.toInstant();
    } else if (value instanceof String s) {
      try {
        instant = OffsetDateTime.parse(s.trim()).toInstant();
      } catch (DateTimeParseException e) {
        throw mismatch("an ISO timestamp with an offset (e.g. 2024-05-01T10:15:30Z)", value);
      }
    } else {
      throw mismatch("an Instant, OffsetDateTime, ZonedDateTime or ISO timestamp string", value);
    }
    return micros(instant.getEpochSecond(), instant.getNano());
  }

  private static Object localTimestampMicros(Object value) {
    LocalDateTime local;
    if (value instanceof LocalDateTime ldt) {
      local = ldt;
    } else if (value instanceof String s) {
      try {
        local = LocalDateTime.parse(s.trim());
      } catch (DateTimeParseException e) {
        throw mismatch("an ISO local timestamp (e.g. 2024-05-01T10:15:30)", value);
      }
    } else {
      throw mismatch("a LocalDateTime or an ISO local timestamp string (the column has no "
          + "time zone)", value);
    }
    return micros(local.toEpochSecond(java.time.ZoneOffset.UTC), local.getNano());
  }

  private static long micros(long epochSecond, int nanos) {
    return Math.addExact(Math.multiplyExact(epochSecond, MICROS_PER_SECOND), nanos / 1_000L);
  }

  private static Object toUtf8(Object value) {
    if (value instanceof CharSequence text) {
      return text.toString().getBytes(StandardCharsets.UTF_8);
    }
    throw mismatch("a String", value);
  }

  private static Object toBytes(Object value) {
    if (value instanceof byte[] bytes) {
      return bytes;
    }
    if (value instanceof ByteBuffer buffer) {
      ByteBuffer copy = buffer.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      return bytes;
    }
    throw mismatch("a byte[] or ByteBuffer", value);
  }

  private static Object toFixed(Object value, int width) {
    byte[] bytes;
    if (value instanceof UUID uuid) {
      bytes = uuidBytes(uuid);
    } else if (value instanceof String s && width == 16) {
      try {
        bytes = uuidBytes(UUID.fromString(s.trim()));
      } catch (IllegalArgumentException e) {
        throw mismatch("a UUID string", value);
      }
    } else if (value instanceof byte[] || value instanceof ByteBuffer) {
      bytes = (byte[]) toBytes(value);
    } else {
      throw mismatch(width == 16 ? "a UUID, a UUID string or a byte[16]" : "a byte[" + width + "]",
          value);
    }
    if (bytes.length != width) {
      throw new IllegalArgumentException("expected " + width + " bytes but got " + bytes.length);
    }
    return bytes;
  }

  private static byte[] uuidBytes(UUID uuid) {
    return ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits()).array();
  }

  private static Object toDecimal(Object value, int precision, int scale) {
    BigDecimal decimal;
    if (value instanceof BigDecimal d) {
      decimal = d;
    } else if (value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte) {
      decimal = BigDecimal.valueOf(((Number) value).longValue());
    } else if (value instanceof BigInteger big) {
      decimal = new BigDecimal(big);
    } else if (value instanceof String s) {
      try {
        decimal = new BigDecimal(s.trim());
      } catch (NumberFormatException e) {
        throw mismatch("a decimal number", value);
      }
    } else {
      throw mismatch("a BigDecimal, an integer or a decimal string (doubles are inexact)", value);
    }
    BigDecimal scaled;
    try {
      scaled = decimal.setScale(scale, RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("value " + decimal.toPlainString() + " has more than "
          + scale + " decimal places");
    }
    if (scaled.precision() > precision) {
      throw new IllegalArgumentException("value " + decimal.toPlainString()
          + " does not fit decimal(" + precision + ", " + scale + ")");
    }
    return scaled;
  }

  private static IllegalArgumentException mismatch(String expected, Object value) {
    String shown = value instanceof byte[] bytes ? "byte[" + bytes.length + "]" : "'" + value + "'";
    return new IllegalArgumentException("expected " + expected + " but got "
        + value.getClass().getSimpleName() + " " + shown);
  }
}
