package io.verglas.materializer.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.row.EveryTypeRow;
import io.verglas.row.RowCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The payload writer makes the files Iceberg's generic writer makes of the same rows: the same
 * values read back, and the same metrics (counts, NaN counts, bounds) in the data file.
 */
class PayloadParquetWriterTest {
  /**
   * Every type a WAL row holds: the row format's every-type columns ({@link EveryTypeRow}) but
   * its decimal, then decimals of each physical form (int32, int64, fixed) and a required string.
   */
  static final Schema EVERY_TYPE = new Schema(Stream.concat(
      EveryTypeRow.SCHEMA.columns().stream().filter(c -> c.type().typeId() != Type.TypeID.DECIMAL),
      Stream.of(
          Types.NestedField.optional(14, "dec_small", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(15, "dec_medium", Types.DecimalType.of(18, 4)),
          Types.NestedField.optional(16, "dec_large", Types.DecimalType.of(30, 6)),
          Types.NestedField.required(17, "name", Types.StringType.get()))).toList());
  private static final String[] TEXT = {"", "a", "héllo wörld", "日本語", "emoji 🚀", "zz"};
  private static final double[] SPECIAL = {Double.NaN, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, -0.0, 0.0, Double.MIN_VALUE, -Double.MAX_VALUE};

  @TempDir Path dir;

  @Test
  void writesWhatTheGenericWriterWritesForEveryType() throws IOException {
    for (long seed = 1; seed <= 5; seed++) {
      List<Record> records = randomRecords(EVERY_TYPE, new Random(seed), 3_000);
      assertSameFiles(EVERY_TYPE, records, "seed-" + seed);
    }
  }

  @Test
  void aNullInEveryOptionalColumnAndOnlyNullsStillMatch() throws IOException {
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      GenericRecord record = GenericRecord.create(EVERY_TYPE);
      record.setField("id", (long) i);
      record.setField("name", "n" + i);
      records.add(record);
    }
    assertSameFiles(EVERY_TYPE, records, "nulls");
  }

  @Test
  void aRequiredColumnWithoutValueFailsTheWrite() throws IOException {
    GenericRecord record = GenericRecord.create(EVERY_TYPE);
    record.setField("id", 1L);
    byte[] row = RowCodec.encode(record, EVERY_TYPE);
    try (DataWriter<byte[]> writer = writer(EVERY_TYPE, "required", PayloadParquetWriter::create)) {
      assertThatThrownBy(() -> writer.write(row))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("required column name is null");
    }
  }

  /** A struct column makes the writer decode rows into records (structs null, empty or set). */
  @Test
  void aSchemaWithANestedColumnIsWrittenThroughRecords() throws IOException {
    Schema nested = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "address", Types.StructType.of(
            Types.NestedField.optional(3, "city", Types.StringType.get()))),
        Types.NestedField.optional(4, "name", Types.StringType.get()));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      GenericRecord record = GenericRecord.create(nested);
      record.setField("id", (long) i);
      record.setField("name", i % 3 == 0 ? null : "n" + i);
      if (i % 2 == 1) {
        GenericRecord address = GenericRecord.create(nested.findType("address").asStructType());
        address.setField("city", i % 5 == 0 ? null : "c" + i);
        record.setField("address", address);
      }
      records.add(record);
    }
    assertSameFiles(nested, records, "nested");
  }

  /** List columns: through records too, null lists, empty lists and null elements kept. */
  @Test
  void listColumnsAreWrittenAsTheGenericWriterWritesThem() throws IOException {
    Schema lists = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "embedding",
            Types.ListType.ofOptional(3, Types.FloatType.get())),
        Types.NestedField.optional(4, "tags", Types.ListType.ofRequired(5,
            Types.StringType.get())));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      GenericRecord record = GenericRecord.create(lists);
      record.setField("id", (long) i);
      record.setField("embedding", switch (i % 4) {
        case 0 -> null;
        case 1 -> List.of();
        case 2 -> java.util.Arrays.asList(null, (float) i);
        default -> List.of((float) i, -0.5f, Float.NaN);
      });
      record.setField("tags", i % 5 == 0 ? null : List.of("t" + i, "x"));
      records.add(record);
    }
    assertSameFiles(lists, records, "lists");
  }

  /** The row id column comes after every leaf of list and struct columns, not after the first. */
  @Test
  void rowIdsFollowListAndStructColumns() throws IOException {
    Types.StructType point = Types.StructType.of(
        Types.NestedField.required(4, "x", Types.DoubleType.get()),
        Types.NestedField.optional(5, "label", Types.StringType.get()));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "embedding",
            Types.ListType.ofOptional(3, Types.FloatType.get())),
        Types.NestedField.optional(6, "point", point));
    Schema fileSchema = RowIdParquetWriter.fileSchema(schema);
    List<RowIdParquetWriter> created = new ArrayList<>();
    DataFile file;
    try (DataWriter<byte[]> writer = writer(fileSchema, "row-ids", (s, type) -> {
      created.add(RowIdParquetWriter.create(schema, type));
      return created.get(0);
    })) {
      for (long i = 0; i < 3; i++) {
        GenericRecord record = GenericRecord.create(schema);
        GenericRecord value = GenericRecord.create(point);
        value.setField("x", (double) i);
        record.setField("id", i);
        record.setField("embedding", List.of(1f, 2f));
        record.setField("point", value);
        created.get(0).nextRowId(i == 1 ? RowIdParquetWriter.INHERITED : 100 + i);
        writer.write(RowCodec.encode(record, schema));
      }
      writer.close();
      file = writer.toDataFile();
    }

    List<Object> rowIds = new ArrayList<>();
    try (CloseableIterable<Record> rows = Parquet.read(Files.localInput(file.location()))
        .project(fileSchema)
        .createReaderFunc(type -> GenericParquetReaders.buildReader(fileSchema, type,
            java.util.Map.of(org.apache.iceberg.MetadataColumns.ROW_ID.fieldId(), 0L)))
        .build()) {
      rows.forEach(row -> rowIds.add(row.getField("_row_id")));
    }
    assertThat(rowIds).containsExactly(100L, 1L, 102L); // a null inherits first_row_id + position
  }

  private void assertSameFiles(Schema schema, List<Record> records, String name)
      throws IOException {
    DataFile generic;
    try (DataWriter<Record> writer = writer(schema, name + "-generic",
        GenericParquetWriter::create)) {
      records.forEach(writer::write);
      writer.close();
      generic = writer.toDataFile();
    }
    DataFile payload;
    try (DataWriter<byte[]> writer = writer(schema, name + "-payload",
        PayloadParquetWriter::create)) {
      for (Record record : records) {
        writer.write(RowCodec.encode(record, schema));
      }
      writer.close();
      payload = writer.toDataFile();
    }

    assertThat(read(schema, payload)).isEqualTo(read(schema, generic)).isEqualTo(records);
    assertThat(payload.recordCount()).isEqualTo(records.size());
    assertThat(payload.valueCounts()).isEqualTo(generic.valueCounts());
    assertThat(payload.nullValueCounts()).isEqualTo(generic.nullValueCounts());
    assertThat(payload.nanValueCounts()).isEqualTo(generic.nanValueCounts());
    assertThat(payload.lowerBounds()).isEqualTo(generic.lowerBounds());
    assertThat(payload.upperBounds()).isEqualTo(generic.upperBounds());
    assertThat(payload.columnSizes()).isEqualTo(generic.columnSizes());
  }

  private <T> DataWriter<T> writer(Schema schema, String name,
      BiFunction<Schema, MessageType, ParquetValueWriter<?>> model)
      throws IOException {
    return Parquet.writeData(Files.localOutput(dir.resolve(name + ".parquet").toFile()))
        .schema(schema)
        .withSpec(PartitionSpec.unpartitioned())
        .metricsConfig(MetricsConfig.getDefault())
        .createWriterFunc(model)
        .overwrite()
        .build();
  }

  private List<Record> read(Schema schema, DataFile file) throws IOException {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> rows = Parquet.read(Files.localInput(file.location()))
        .project(schema)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
        .build()) {
      rows.forEach(records::add);
    }
    return records;
  }

  static List<Record> randomRecords(Schema schema, Random random, int count) {
    List<Record> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      GenericRecord record = GenericRecord.create(schema);
      for (Types.NestedField field : schema.columns()) {
        if (field.isRequired() || random.nextInt(4) != 0) {
          record.setField(field.name(), value(field.type(), random, i));
        }
      }
      records.add(record);
    }
    return records;
  }

  private static Object value(Type type, Random random, int i) {
    return switch (type.typeId()) {
      case BOOLEAN -> random.nextBoolean();
      case INTEGER -> random.nextInt(5) == 0 ? Integer.MIN_VALUE + random.nextInt(3)
          : random.nextInt();
      case LONG -> random.nextInt(5) == 0 ? (long) i : random.nextLong();
      case FLOAT -> random.nextInt(6) == 0 ? (float) special(random)
          : random.nextFloat() * 1e6f - 5e5f;
      case DOUBLE -> random.nextInt(6) == 0 ? special(random) : random.nextGaussian() * 1e9;
      case DATE -> LocalDate.ofEpochDay(random.nextInt(80_000) - 20_000);
      case TIME -> LocalTime.ofNanoOfDay(random.nextLong(86_400_000_000L) * 1_000L);
      case TIMESTAMP -> {
        LocalDateTime local = LocalDateTime.of(1970, 1, 1, 0, 0)
            .plus(random.nextLong(4_000_000_000_000_000L) - 1_000_000_000_000_000L,
                ChronoUnit.MICROS);
        yield ((Types.TimestampType) type).shouldAdjustToUTC()
            ? local.atOffset(ZoneOffset.UTC) : local;
      }
      case STRING -> TEXT[random.nextInt(TEXT.length)] + (random.nextBoolean() ? "-" + i : "");
      case UUID -> new UUID(random.nextLong(), random.nextLong());
      case FIXED -> bytes(random, ((Types.FixedType) type).length());
      case BINARY -> ByteBuffer.wrap(bytes(random, random.nextInt(20)));
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        BigInteger unscaled = new BigInteger(decimal.precision() * 3, random)
            .mod(BigInteger.TEN.pow(decimal.precision()));
        yield new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(),
            decimal.scale());
      }
      default -> throw new IllegalArgumentException("No values for " + type);
    };
  }

  private static double special(Random random) {
    return SPECIAL[random.nextInt(SPECIAL.length)];
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }
}
