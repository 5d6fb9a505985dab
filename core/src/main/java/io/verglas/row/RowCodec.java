package io.verglas.row;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A compact binary form of one row of Iceberg generic values, keyed by field id.
 *
 * <p>Design: rows travel between Flink operators and sit in keyed state as bytes, so they must
 * not depend on Kryo or on the schema they were written with. Each non-null value is written as
 * {@code field id, value}; decoding against a later schema (a nullable column added) leaves the
 * new column null and skips ids the schema no longer has. Version 1 of the format; the first
 * byte is the version.
 *
 * <p>A list is a sized value (so readers that skip it need not know its type): its length, then
 * the number of elements, then per element a byte, 0 for a null element or 1 followed by the
 * element's value. A struct is a sized value too: per field of the struct type, in its order, a
 * byte 0 for null or 1 followed by the field's value. Lists and structs came after version 1
 * without changing it: no row of an older writer holds one, and primitive values keep their
 * bytes.
 */
public final class RowCodec {
  /** The {@link #width} of a sized value: a length ({@code int}), then that many bytes. */
  static final int SIZED = -1;
  /** The {@link #width} of a type rows cannot hold. */
  static final int UNSUPPORTED = -2;
  static final int VERSION = 1;
  private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

  private RowCodec() {}

  public static byte[] encode(Record record, Schema schema) {
    // Sized for a typical row, so the buffer rarely grows (each growth copies it).
    RowBytes out = new RowBytes(256);
    out.writeByte(VERSION);
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      Object value = record.get(i);
      if (value != null) {
        out.writeInt(columns.get(i).fieldId());
        writeValue(out, columns.get(i).type(), value);
      }
    }
    return out.toByteArray();
  }

  public static GenericRecord decode(byte[] bytes, Schema schema) {
    return decodeInto(bytes, GenericRecord.create(schema), new RowFields(schema));
  }

  /**
   * Decodes into {@code record}, a new record of the schema of {@code fields} (see
   * {@link RowDecoder}): the row's values are found by {@link RowFields#scan}, which also checks
   * the row, and read at their offsets.
   */
  static GenericRecord decodeInto(byte[] bytes, GenericRecord record, RowFields fields) {
    int[] offsets = new int[fields.size()];
    fields.scan(bytes, offsets);
    return readInto(bytes, record, fields, offsets);
  }

  /**
   * Reads into {@code record} the values that lie at {@code offsets} in {@code bytes}, as
   * {@link RowFields#scan} of {@code fields} found them.
   */
  static GenericRecord readInto(byte[] bytes, GenericRecord record, RowFields fields,
      int[] offsets) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    for (int i = 0; i < offsets.length; i++) {
      if (offsets[i] != RowFields.ABSENT) {
        in.position(offsets[i]);
        record.set(i, readValue(in, fields.type(i)));
      }
    }
    return record;
  }

  /** The position of the column with {@code fieldId} in {@code columns}, or -1. */
  static int position(List<Types.NestedField> columns, int fieldId) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == fieldId) {
        return i;
      }
    }
    return -1;
  }

  /** The primary key of a row as bytes: equal keys give equal bytes. Key values must not be null. */
  public static byte[] encodeKey(Record record, Schema schema, List<Integer> keyFieldIds) {
    RowBytes out = new RowBytes(32);
    for (int fieldId : keyFieldIds) {
      Types.NestedField field = schema.findField(fieldId);
      Object value = record.getField(field.name());
      if (value == null) {
        throw new IllegalArgumentException("Invalid primary key: " + field.name() + " is null");
      }
      writeValue(out, field.type(), value);
    }
    return out.toByteArray();
  }

  static void writeValue(RowBytes out, Type type, Object value) {
    switch (type.typeId()) {
      case BOOLEAN: out.writeByte((Boolean) value ? 1 : 0); break;
      case INTEGER: out.writeInt((Integer) value); break;
      case LONG: out.writeLong((Long) value); break;
      case FLOAT: out.writeInt(Float.floatToIntBits((Float) value)); break;
      case DOUBLE: out.writeLong(Double.doubleToLongBits((Double) value)); break;
      case DATE: out.writeInt((int) ((LocalDate) value).toEpochDay()); break;
      case TIME: out.writeLong(((LocalTime) value).toNanoOfDay() / 1_000L); break;
      case TIMESTAMP: out.writeLong(micros(value)); break;
      case STRING: out.writeSized(value.toString().getBytes(StandardCharsets.UTF_8)); break;
      case UUID:
        UUID uuid = (UUID) value;
        out.writeLong(uuid.getMostSignificantBits());
        out.writeLong(uuid.getLeastSignificantBits());
        break;
      case FIXED: out.writeSized((byte[]) value); break;
      case BINARY: out.writeSized(bytes((ByteBuffer) value)); break;
      case DECIMAL: out.writeSized(((BigDecimal) value).unscaledValue().toByteArray()); break;
      case LIST: writeList(out, type.asListType().elementType(), (List<?>) value); break;
      case STRUCT: writeStruct(out, type.asStructType(), (StructLike) value); break;
      default: throw new IllegalArgumentException("Cannot encode value of type " + type);
    }
  }

  private static Object readValue(ByteBuffer in, Type type) {
    switch (type.typeId()) {
      case BOOLEAN: return in.get() != 0;
      case INTEGER: return in.getInt();
      case LONG: return in.getLong();
      case FLOAT: return Float.intBitsToFloat(in.getInt());
      case DOUBLE: return Double.longBitsToDouble(in.getLong());
      case DATE: return LocalDate.ofEpochDay(in.getInt());
      case TIME: return LocalTime.ofNanoOfDay(in.getLong() * 1_000L);
      case TIMESTAMP:
        LocalDateTime local = EPOCH.plus(in.getLong(), ChronoUnit.MICROS);
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? local.atOffset(ZoneOffset.UTC) : local;
      case STRING: return readString(in);
      case UUID: return new UUID(in.getLong(), in.getLong());
      case FIXED: return readBytes(in);
      case BINARY: return ByteBuffer.wrap(readBytes(in));
      case DECIMAL:
        return new BigDecimal(new BigInteger(readBytes(in)), ((Types.DecimalType) type).scale());
      case LIST: return readList(in, type.asListType().elementType());
      case STRUCT: return readStruct(in, type.asStructType());
      default: throw new IllegalArgumentException("Cannot decode value of type " + type);
    }
  }

  private static void writeList(RowBytes out, Type elementType, List<?> values) {
    RowBytes elements = new RowBytes(Integer.BYTES + values.size() * (1 + Long.BYTES));
    elements.writeInt(values.size());
    for (Object value : values) {
      writeNullable(elements, elementType, value);
    }
    out.writeSized(elements.toByteArray());
  }

  private static void writeStruct(RowBytes out, Types.StructType type, StructLike value) {
    RowBytes fields = new RowBytes(64);
    for (int i = 0; i < type.fields().size(); i++) {
      writeNullable(fields, type.fields().get(i).type(), value.get(i, Object.class));
    }
    out.writeSized(fields.toByteArray());
  }

  /** A byte 0 for null, or 1 followed by the value: an element of a list, a field of a struct. */
  private static void writeNullable(RowBytes out, Type type, Object value) {
    if (value == null) {
      out.writeByte(0);
    } else {
      out.writeByte(1);
      writeValue(out, type, value);
    }
  }

  private static Object readNullable(ByteBuffer in, Type type) {
    return in.get() == 0 ? null : readValue(in, type);
  }

  private static GenericRecord readStruct(ByteBuffer in, Types.StructType type) {
    int end = readLength(in) + in.position();
    GenericRecord record = GenericRecord.create(type);
    for (int i = 0; i < type.fields().size(); i++) {
      record.set(i, readNullable(in, type.fields().get(i).type()));
    }
    checkEnd(in, end, "a struct");
    return record;
  }

  private static List<Object> readList(ByteBuffer in, Type elementType) {
    int end = readLength(in) + in.position();
    int count = in.getInt();
    if (count < 0 || count > end - in.position()) {
      throw new IllegalArgumentException("Cannot decode row: a list of " + count
          + " elements at byte " + in.position() + " exceeds its " + (end - in.position())
          + " bytes");
    }
    List<Object> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(readNullable(in, elementType));
    }
    checkEnd(in, end, "a list");
    return values;
  }

  /** Checks that a sized value ({@code what}) was read to exactly the {@code end} its length gives. */
  private static void checkEnd(ByteBuffer in, int end, String what) {
    if (in.position() != end) {
      throw new IllegalArgumentException("Cannot decode row: " + what + " ends at byte "
          + in.position() + " but its length says " + end);
    }
  }

  /** Moves past one value of {@code type}: as far as {@link #readValue} would read. */
  static void skipValue(ByteBuffer in, Type type) {
    int width = width(type);
    if (width == UNSUPPORTED) {
      throw unsupported(type);
    }
    skip(in, width == SIZED ? readLength(in) : width);
  }

  /** The bytes of a value of {@code type}: a fixed number, {@link #SIZED} or {@link #UNSUPPORTED}. */
  static int width(Type type) {
    switch (type.typeId()) {
      case BOOLEAN: return 1;
      case INTEGER: case FLOAT: case DATE: return Integer.BYTES;
      case LONG: case DOUBLE: case TIME: case TIMESTAMP: return Long.BYTES;
      case UUID: return 2 * Long.BYTES;
      case STRING: case FIXED: case BINARY: case DECIMAL: case LIST: case STRUCT: return SIZED;
      default: return UNSUPPORTED;
    }
  }

  static IllegalArgumentException unsupported(Type type) {
    return new IllegalArgumentException("Cannot decode value of type " + type);
  }

  private static void skip(ByteBuffer in, int bytes) {
    if (bytes > in.remaining()) {
      throw new BufferUnderflowException();
    }
    in.position(in.position() + bytes);
  }

  private static long micros(Object value) {
    LocalDateTime local = value instanceof OffsetDateTime odt
        ? odt.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime() : (LocalDateTime) value;
    return ChronoUnit.MICROS.between(EPOCH, local);
  }

  private static String readString(ByteBuffer in) {
    int length = readLength(in);
    String value = new String(in.array(), in.arrayOffset() + in.position(), length,
        StandardCharsets.UTF_8);
    in.position(in.position() + length);
    return value;
  }

  private static byte[] readBytes(ByteBuffer in) {
    byte[] bytes = new byte[readLength(in)];
    in.get(bytes);
    return bytes;
  }

  private static int readLength(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0 || length > in.remaining()) {
      throw new IllegalArgumentException("Cannot decode row: a value of " + length
          + " bytes at byte " + in.position() + " exceeds the row of " + in.limit() + " bytes");
    }
    return length;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
