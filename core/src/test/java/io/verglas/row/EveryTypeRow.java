package io.verglas.row;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

/**
 * A schema with a column of every primitive type a table of ours has, and one row of it with a
 * value in each. Shared by the row format's tests (whose golden bytes pin both: change neither)
 * and, through this module's test jar, by the tests of answers made of rows.
 */
public final class EveryTypeRow {
  public static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(3, "i", Types.IntegerType.get()),
      Types.NestedField.optional(4, "f", Types.FloatType.get()),
      Types.NestedField.optional(5, "d", Types.DoubleType.get()),
      Types.NestedField.optional(6, "day", Types.DateType.get()),
      Types.NestedField.optional(7, "t", Types.TimeType.get()),
      Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(9, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(10, "s", Types.StringType.get()),
      Types.NestedField.optional(11, "u", Types.UUIDType.get()),
      Types.NestedField.optional(12, "fx", Types.FixedType.ofLength(3)),
      Types.NestedField.optional(13, "b", Types.BinaryType.get()),
      Types.NestedField.optional(14, "dec", Types.DecimalType.of(10, 2)));

  private EveryTypeRow() {}

  /** A new record with a value in every column. */
  public static GenericRecord record() {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 7L);
    record.setField("flag", true);
    record.setField("i", -3);
    record.setField("f", 1.5f);
    record.setField("d", -2.25);
    record.setField("day", LocalDate.of(2026, 11, 29));
    record.setField("t", LocalTime.of(10, 11, 12, 123_456_000));
    record.setField("ts", LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000));
    record.setField("tstz", OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 6_000, ZoneOffset.UTC));
    record.setField("s", "héllo");
    record.setField("u", UUID.fromString("00112233-4455-6677-8899-aabbccddeeff"));
    record.setField("fx", new byte[] {1, 2, 3});
    record.setField("b", ByteBuffer.wrap(new byte[] {9, 8}));
    record.setField("dec", new BigDecimal("-12345678.91"));
    return record;
  }
}
