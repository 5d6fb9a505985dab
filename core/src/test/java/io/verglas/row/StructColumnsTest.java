package io.verglas.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.arrow.ColumnWriter;
import io.verglas.arrow.UnsupportedTypeException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Struct columns of primitives: their Arrow mapping, what they accept, and their way through rows. */
class StructColumnsTest {
  private static final Types.StructType POINT = Types.StructType.of(
      Types.NestedField.required(3, "x", Types.DoubleType.get()),
      Types.NestedField.optional(4, "label", Types.StringType.get()));
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "point", POINT),
      Types.NestedField.optional(5, "score", Types.IntegerType.get()));
  private static final ArrowType FLOAT32 =
      new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void mapsAStructColumnToAnArrowStructWithItsFields() {
    Field field = ArrowSchemas.toArrow(SCHEMA.findField("point"));

    assertThat(field.getType()).isEqualTo(ArrowType.Struct.INSTANCE);
    assertThat(field.getChildren()).extracting(Field::getName).containsExactly("x", "label");
    assertThat(field.getChildren().get(0).isNullable()).isFalse();
    assertThatThrownBy(() -> ArrowSchemas.toArrow(Types.StructType.of(Types.NestedField.optional(
        1, "tags", Types.ListType.ofOptional(2, Types.StringType.get())))))
        .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("not supported");
  }

  @Test
  void acceptsWideningFieldsAndAbsentOptionalOnesAndNamesWhatDoesNotFit() {
    assertThat(ArrowSchemas.incompatibility(struct(Field.nullable("x", FLOAT32)), POINT)).isEmpty();
    assertThat(ArrowSchemas.incompatibility(struct(Field.nullable("label",
        ArrowType.Utf8.INSTANCE)), POINT)).hasValue("struct field 'x': required field is missing");
    assertThat(ArrowSchemas.incompatibility(struct(Field.nullable("x", FLOAT32),
        Field.nullable("y", FLOAT32)), POINT))
        .hasValue("struct field 'y': unknown field (the struct has [x, label])");
    assertThat(ArrowSchemas.incompatibility(struct(Field.nullable("x",
        ArrowType.Utf8.INSTANCE)), POINT))
        .hasValue("struct field 'x': expected double but got Arrow Utf8");
    assertThat(ArrowSchemas.incompatibility(Field.nullable("point", FLOAT32), POINT))
        .hasValueSatisfying(problem -> assertThat(problem).contains("(an Arrow Struct)"));
  }

  @Test
  void encodesStructCellsAsTheGenericPathDoesAndDecodesThemBack() {
    org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(SCHEMA);
    List<Object> points = Arrays.asList(Map.of("x", 1.5, "label", "a"), null, Map.of("x", -2));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      root.allocateNew();
      ColumnWriter ids = ColumnWriter.forField(arrow.findField("id"));
      ColumnWriter point = ColumnWriter.forField(arrow.findField("point"));
      for (int row = 0; row < points.size(); row++) {
        ids.write(root.getVector("id"), row, ids.convert((long) row));
        point.write(root.getVector("point"), row, point.convert(points.get(row)));
      }
      root.setRowCount(points.size());
      List<FieldVector> vectors = Arrays.asList(root.getVector("id"), root.getVector("point"), null);
      ArrowRowEncoder encoder = ArrowRowEncoder.bind(SCHEMA, List.of(1), vectors);

      for (int row = 0; row < points.size(); row++) {
        GenericRecord expected = GenericRecord.create(SCHEMA);
        expected.setField("id", (long) row);
        if (points.get(row) != null) {
          GenericRecord value = GenericRecord.create(POINT);
          value.setField("x", ((Number) ((Map<?, ?>) points.get(row)).get("x")).doubleValue());
          value.setField("label", ((Map<?, ?>) points.get(row)).get("label"));
          expected.setField("point", value);
        }
        assertThat(encoder.payload(row)).isEqualTo(RowCodec.encode(expected, SCHEMA));
        assertThat(RowCodec.decode(encoder.payload(row), SCHEMA)).isEqualTo(expected);
      }
    }
  }

  @Test
  void skipsStructValuesWhenLocatingColumns() {
    GenericRecord point = GenericRecord.create(POINT);
    point.setField("x", 3.0);
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 7L);
    record.setField("point", point);
    record.setField("score", 42);
    byte[] row = RowCodec.encode(record, SCHEMA);
    int[] offsets = new int[3];

    new RowFields(SCHEMA).locate(row, offsets);

    assertThat(RowFields.intAt(row, offsets[2])).isEqualTo(42);
    assertThat(new RowDecoder(SCHEMA).decode(row)).isEqualTo(record);
  }

  @Test
  void refusesUnknownAndNullRequiredFieldsWhenWritingRows() {
    ColumnWriter point = ColumnWriter.forField(ArrowSchemas.toArrow(SCHEMA.findField("point")));
    Map<String, Object> nullX = new HashMap<>();
    nullX.put("x", null);

    assertThatThrownBy(() -> point.convert(nullX)).hasMessage("field 'x' is required");
    assertThatThrownBy(() -> point.convert(Map.of("x", 1.0, "y", 2.0)))
        .hasMessageStartingWith("unknown fields in").hasMessageEndingWith("(the struct has [x, label])");
    assertThatThrownBy(() -> point.convert(Map.of("x", "one")))
        .hasMessageStartingWith("field 'x': expected a floating-point number");
    assertThatThrownBy(() -> point.convert(List.of(1.0)))
        .hasMessageStartingWith("expected a Map of field names to values or a Record");
  }

  private static Field struct(Field... children) {
    return new Field("point", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(children));
  }
}
