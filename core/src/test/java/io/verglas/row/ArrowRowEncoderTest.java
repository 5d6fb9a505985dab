package io.verglas.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The direct encoder against the generic path it replaces: for every column type, copied or
 * not, with nulls, multi-byte and malformed UTF-8, the same payload and key bytes.
 */
class ArrowRowEncoderTest {
  private static final int ROWS = 2_000;
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "widened_long", Types.LongType.get()),
      Types.NestedField.optional(3, "score", Types.IntegerType.get()),
      Types.NestedField.required(4, "name", Types.StringType.get()),
      Types.NestedField.optional(5, "large_name", Types.StringType.get()),
      Types.NestedField.optional(6, "price", Types.DoubleType.get()),
      Types.NestedField.optional(7, "widened_double", Types.DoubleType.get()),
      Types.NestedField.optional(8, "ratio", Types.FloatType.get()),
      Types.NestedField.optional(9, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(10, "day", Types.DateType.get()),
      Types.NestedField.optional(11, "at", Types.TimestampType.withZone()),
      Types.NestedField.optional(12, "local_at", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(13, "at_millis", Types.TimestampType.withZone()),
      Types.NestedField.optional(14, "local_at_nanos", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(15, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(16, "uid", Types.UUIDType.get()),
      Types.NestedField.optional(17, "blob", Types.BinaryType.get()),
      Types.NestedField.optional(18, "missing", Types.StringType.get()));
  private static final List<Integer> KEY = List.of(4, 1);

  private final BufferAllocator allocator = new RootAllocator();
  private final List<FieldVector> owned = new ArrayList<>();
  private final SplittableRandom random = new SplittableRandom(7);

  @AfterEach
  void close() {
    owned.forEach(FieldVector::close);
    allocator.close();
  }

  @Test
  void encodesTheSameBytesAsTheGenericPath() {
    List<FieldVector> vectors = vectors();
    ArrowRowEncoder encoder = ArrowRowEncoder.bind(SCHEMA, KEY, vectors);
    List<IntFunction<Object>> readers = new ArrayList<>();
    for (int c = 0; c < vectors.size(); c++) {
      FieldVector vector = vectors.get(c);
      readers.add(vector == null ? null : ArrowValues.reader(vector, SCHEMA.columns().get(c).type()));
    }
    for (int row = 0; row < ROWS; row++) {
      GenericRecord record = GenericRecord.create(SCHEMA);
      for (int c = 0; c < readers.size(); c++) {
        record.set(c, readers.get(c) == null ? null : readers.get(c).apply(row));
      }
      assertThat(encoder.payload(row)).as("payload of row %d", row)
          .isEqualTo(RowCodec.encode(record, SCHEMA));
      assertThat(encoder.key(row)).as("key of row %d", row)
          .isEqualTo(RowCodec.encodeKey(record, SCHEMA, KEY));
    }
  }

  @Test
  void aNullKeyColumnIsNamed() {
    List<FieldVector> vectors = vectors();
    ((VarCharVector) vectors.get(3)).setNull(5);
    ArrowRowEncoder encoder = ArrowRowEncoder.bind(SCHEMA, KEY, vectors);

    assertThat(encoder.key(4)).isNotEmpty();
    assertThatThrownBy(() -> encoder.key(5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid primary key: name is null");
  }

  @Test
  void aKeyFieldOutsideTheSchemaIsRejected() {
    assertThatThrownBy(() -> ArrowRowEncoder.bind(SCHEMA, List.of(99), vectors()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field id 99 is not in schema");
  }

  private List<FieldVector> vectors() {
    List<FieldVector> vectors = new ArrayList<>();
    BigIntVector id = add(new BigIntVector("id", allocator), vectors);
    SmallIntVector widenedLong = add(new SmallIntVector("widened_long", allocator), vectors);
    IntVector score = add(new IntVector("score", allocator), vectors);
    VarCharVector name = add(new VarCharVector("name", allocator), vectors);
    LargeVarCharVector largeName = add(new LargeVarCharVector("large_name", allocator), vectors);
    Float8Vector price = add(new Float8Vector("price", allocator), vectors);
    Float4Vector widenedDouble = add(new Float4Vector("widened_double", allocator), vectors);
    Float4Vector ratio = add(new Float4Vector("ratio", allocator), vectors);
    BitVector flag = add(new BitVector("flag", allocator), vectors);
    DateDayVector day = add(new DateDayVector("day", allocator), vectors);
    TimeStampMicroTZVector at = add(new TimeStampMicroTZVector("at", allocator, "UTC"), vectors);
    TimeStampMicroVector localAt = add(new TimeStampMicroVector("local_at", allocator), vectors);
    TimeStampMilliTZVector atMillis =
        add(new TimeStampMilliTZVector("at_millis", allocator, "UTC"), vectors);
    TimeStampNanoVector localAtNanos =
        add(new TimeStampNanoVector("local_at_nanos", allocator), vectors);
    DecimalVector amount = add(new DecimalVector("amount", allocator, 10, 2), vectors);
    FixedSizeBinaryVector uid = add(new FixedSizeBinaryVector("uid", allocator, 16), vectors);
    VarBinaryVector blob = add(new VarBinaryVector("blob", allocator), vectors);
    vectors.add(null); // "missing": not in the batch
    for (int row = 0; row < ROWS; row++) {
      id.setSafe(row, random.nextLong());
      name.setSafe(row, text());
      if (present()) {
        widenedLong.setSafe(row, (short) random.nextInt());
        score.setSafe(row, random.nextInt());
        largeName.setSafe(row, text());
        price.setSafe(row, random.nextDouble() * 1e6 - 5e5);
        widenedDouble.setSafe(row, (float) random.nextDouble());
        ratio.setSafe(row, (float) random.nextDouble());
        flag.setSafe(row, random.nextBoolean() ? 1 : 0);
        day.setSafe(row, random.nextInt(-100_000, 100_000));
        at.setSafe(row, random.nextLong(-4_000_000_000_000_000L, 4_000_000_000_000_000L));
        localAt.setSafe(row, random.nextLong(-4_000_000_000_000_000L, 4_000_000_000_000_000L));
        atMillis.setSafe(row, random.nextLong(-4_000_000_000_000L, 4_000_000_000_000L));
        localAtNanos.setSafe(row, random.nextLong());
        amount.setSafe(row, BigDecimal.valueOf(random.nextLong(-9_999_999_999L, 9_999_999_999L),
            2));
        uid.setSafe(row, bytes(16));
        blob.setSafe(row, bytes(random.nextInt(40)));
      } else {
        for (FieldVector vector : vectors.subList(1, vectors.size() - 1)) {
          if (vector != name) {
            vector.setNull(row);
          }
        }
      }
    }
    for (FieldVector vector : vectors.subList(0, vectors.size() - 1)) {
      vector.setValueCount(ROWS);
    }
    return vectors;
  }

  private <V extends FieldVector> V add(V vector, List<FieldVector> vectors) {
    vector.allocateNew();
    owned.add(vector);
    vectors.add(vector);
    return vector;
  }

  private boolean present() {
    return random.nextInt(5) != 0;
  }

  /** ASCII, multi-byte UTF-8, or malformed UTF-8 (a lone continuation byte, a cut sequence). */
  private byte[] text() {
    switch (random.nextInt(4)) {
      case 0:
        return ("user-" + random.nextInt(1_000_000)).getBytes(StandardCharsets.UTF_8);
      case 1:
        return ("naïve-日本-" + random.nextInt(100)).getBytes(StandardCharsets.UTF_8);
      case 2: {
        byte[] valid = "caf\u00e9-€".getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(valid, valid.length - 1 - random.nextInt(2));
      }
      default:
        return new byte[] {'a', (byte) 0x80, 'b', (byte) 0xff};
    }
  }

  private byte[] bytes(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
    return bytes;
  }
}
