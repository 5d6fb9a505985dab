package io.verglas.query.lookup;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.UUIDUtil;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Values of the primitive columns the key reader handles, in their three forms: Iceberg's
 * internal one (what a bound literal holds: {@code Integer} days for a date, {@code Long}
 * microseconds for a timestamp, a {@code CharSequence} for a string), Parquet's physical one
 * ({@code Integer}, {@code Long}, {@code Binary}, ...: what a column reader gives, statistics
 * compare and bloom filters hash), and the generic one Iceberg's generic reader answers
 * ({@code LocalDate}, {@code OffsetDateTime}, {@code String}, {@code UUID}, ...), so that a row
 * read here renders exactly like the same row read by {@code IcebergGenerics}. Any other type
 * (nested, variant, geometry, a foreign physical encoding such as INT96 or millisecond
 * timestamps) is not handled: the lookup then falls back to the generic reader.
 */
final class ColumnValues {
  private ColumnValues() {}

  /** Whether a column of {@code type} can be answered by the key reader (any encoding). */
  static boolean supported(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP, TIMESTAMP_NANO, STRING,
          UUID, FIXED, BINARY, DECIMAL -> true;
      default -> false;
    };
  }

  /** Whether a key column of {@code type} can be matched by its Parquet value. */
  static boolean supportedKey(Type type) {
    return supported(type) && type.typeId() != Type.TypeID.DECIMAL
        && type.typeId() != Type.TypeID.FLOAT && type.typeId() != Type.TypeID.DOUBLE;
  }

  /** Whether the file stores {@code type} the way Iceberg writes it. */
  static boolean readable(Type type, PrimitiveType column) {
    PrimitiveTypeName physical = column.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = column.getLogicalTypeAnnotation();
    return switch (type.typeId()) {
      case BOOLEAN -> physical == PrimitiveTypeName.BOOLEAN;
      case INTEGER, DATE -> physical == PrimitiveTypeName.INT32;
      case LONG -> physical == PrimitiveTypeName.INT64 || physical == PrimitiveTypeName.INT32;
      case FLOAT -> physical == PrimitiveTypeName.FLOAT;
      case DOUBLE -> physical == PrimitiveTypeName.DOUBLE || physical == PrimitiveTypeName.FLOAT;
      case TIME, TIMESTAMP -> physical == PrimitiveTypeName.INT64 && unit(logical) == LogicalTypeAnnotation.TimeUnit.MICROS;
      case TIMESTAMP_NANO -> physical == PrimitiveTypeName.INT64 && unit(logical) == LogicalTypeAnnotation.TimeUnit.NANOS;
      case STRING, BINARY -> physical == PrimitiveTypeName.BINARY;
      case UUID, FIXED -> physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
      case DECIMAL -> physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64
          || physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || physical == PrimitiveTypeName.BINARY;
      default -> false;
    };
  }

  private static LogicalTypeAnnotation.TimeUnit unit(LogicalTypeAnnotation logical) {
    if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
      return ts.getUnit();
    }
    if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation time) {
      return time.getUnit();
    }
    return LogicalTypeAnnotation.TimeUnit.MICROS;   // an unannotated int64 as Iceberg reads it
  }

  /** A key value (Iceberg's internal form) as the file's physical value. */
  static Object toParquet(Type type, Object value) {
    return switch (type.typeId()) {
      case INTEGER, DATE -> ((Number) value).intValue();
      case LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> ((Number) value).longValue();
      case STRING -> Binary.fromString(value.toString());
      case UUID -> Binary.fromConstantByteArray(UUIDUtil.convert((UUID) value));
      case FIXED, BINARY -> Binary.fromConstantByteArray(ByteBuffers.toByteArray((ByteBuffer) value));
      case BOOLEAN -> value;
      default -> throw new IllegalArgumentException("Cannot match a key of type " + type);
    };
  }

  /** A physical value as read from the file, in the form {@link #toParquet} gives the key. */
  static Object keyForm(Type type, Object raw) {
    if (raw != null && type.typeId() == Type.TypeID.LONG) {
      return ((Number) raw).longValue();   // an int column promoted to long
    }
    return raw;
  }

  /** A physical value as Iceberg's generic reader answers it. */
  static Object toGeneric(Type type, Object raw) {
    if (raw == null) {
      return null;
    }
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, FLOAT -> raw;
      case LONG -> ((Number) raw).longValue();
      case DOUBLE -> ((Number) raw).doubleValue();
      case DATE -> DateTimeUtil.dateFromDays((Integer) raw);
      case TIME -> DateTimeUtil.timeFromMicros((Long) raw);
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? DateTimeUtil.timestamptzFromMicros((Long) raw) : DateTimeUtil.timestampFromMicros((Long) raw);
      case TIMESTAMP_NANO -> ((Types.TimestampNanoType) type).shouldAdjustToUTC()
          ? DateTimeUtil.timestamptzFromNanos((Long) raw) : DateTimeUtil.timestampFromNanos((Long) raw);
      case STRING -> ((Binary) raw).toStringUsingUTF8();
      case UUID -> UUIDUtil.convert(((Binary) raw).getBytes());
      case FIXED -> ((Binary) raw).getBytes();
      case BINARY -> ByteBuffer.wrap(((Binary) raw).getBytes());
      case DECIMAL -> decimal((Types.DecimalType) type, raw);
      default -> throw new IllegalArgumentException("Cannot convert a value of type " + type);
    };
  }

  private static BigDecimal decimal(Types.DecimalType type, Object raw) {
    if (raw instanceof Binary binary) {
      return new BigDecimal(new BigInteger(binary.getBytes()), type.scale());
    }
    return BigDecimal.valueOf(((Number) raw).longValue(), type.scale());
  }
}
