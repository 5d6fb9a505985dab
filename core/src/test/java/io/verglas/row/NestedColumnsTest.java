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
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * List and struct columns: their Arrow mapping, what they accept, and their way through rows.
 */
class NestedColumnsTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "embedding",
          Types.ListType.ofOptional(3, Types.DoubleType.get())),
      Types.NestedField.optional(4, "tags", Types.ListType.ofRequired(5, Types.StringType.get())),
      Types.NestedField.optional(6, "score", Types.IntegerType.get()));
  private static final Types.StructType POINT = Types.StructType.of(
      Types.NestedField.required(3, "x", Types.DoubleType.get()),
      Types.NestedField.optional(4, "label", Types.StringType.get()));
  private static final Schema STRUCT_SCHEMA = new Schema(
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
  void mapsAListColumnToAnArrowListWithItsElement() {
    Field field = ArrowSchemas.toArrow(SCHEMA.findField("tags"));

    assertThat(field.getType()).isEqualTo(ArrowType.List.INSTANCE);
    assertThat(field.isNullable()).isTrue();
    assertThat(field.getChildren()).singleElement().satisfies(element -> {
      assertThat(element.getName()).isEqualTo("element");
      assertThat(element.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
      assertThat(element.isNullable()).isFalse();
    });
  }

  @Test
  void refusesMapsAndListsOfLists() {
    assertThatThrownBy(() -> ArrowSchemas.toArrow(Types.MapType.ofOptional(1, 2,
        Types.StringType.get(), Types.IntegerType.get())))
        .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("not supported");
    assertThatThrownBy(() -> ArrowSchemas.toArrow(Types.ListType.ofOptional(1,
        Types.ListType.ofOptional(2, Types.IntegerType.get()))))
        .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("not supported");
  }

  @Test
  void acceptsListsLargeListsAndFixedSizeListsOfAWideningElement() {
    Types.ListType doubles = Types.ListType.ofOptional(3, Types.DoubleType.get());
    for (ArrowType list : List.of(ArrowType.List.INSTANCE, ArrowType.LargeList.INSTANCE,
        new ArrowType.FixedSizeList(4))) {
      assertThat(ArrowSchemas.incompatibility(list(list, FLOAT32), doubles)).isEmpty();
    }
  }

  @Test
  void namesTheElementOrTheListThatDoesNotFit() {
    Types.ListType floats = Types.ListType.ofOptional(3, Types.FloatType.get());

    assertThat(ArrowSchemas.incompatibility(list(ArrowType.List.INSTANCE,
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), floats))
        .hasValue("list element: expected float but got Arrow FloatingPoint(DOUBLE)");
    assertThat(ArrowSchemas.incompatibility(Field.nullable("v", FLOAT32), floats))
        .hasValueSatisfying(problem -> assertThat(problem).startsWith("expected list<float> "
            + "(an Arrow List, LargeList or FixedSizeList) but got Arrow FloatingPoint(SINGLE)"));
    assertThat(ArrowSchemas.incompatibility(list(ArrowType.List.INSTANCE, FLOAT32),
        Types.FloatType.get())).hasValue("expected float but got nested Arrow List");
  }

  @Test
  void encodesListCellsOfEveryListVectorAsTheGenericPathDoes() {
    List<List<Float>> cells = Arrays.asList(List.of(1.5f, -2f), null, List.of(),
        Arrays.asList(null, 3f));
    for (FieldVector embedding : List.of(listVector(cells), largeListVector(cells))) {
      assertRoundTrip(embedding, cells);
    }
    List<List<Float>> fixed = Arrays.asList(List.of(1.5f, -2f), null, List.of(0f, 7f),
        Arrays.asList(null, 3f));
    assertRoundTrip(fixedSizeListVector(fixed), fixed);
  }

  @Test
  void skipsListValuesWhenLocatingColumns() {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 7L);
    record.setField("embedding", Arrays.asList(1.0, null, 2.0));
    record.setField("tags", List.of("a", "bc"));
    record.setField("score", 42);
    byte[] row = RowCodec.encode(record, SCHEMA);
    int[] offsets = new int[4];

    new RowFields(SCHEMA).locate(row, offsets);

    assertThat(RowFields.intAt(row, offsets[3])).isEqualTo(42);
    assertThat(RowCodec.decode(row, SCHEMA)).isEqualTo(record);
    assertThat(new RowDecoder(SCHEMA).decode(row)).isEqualTo(record);
  }

  @Test
  void refusesAListWhoseLengthsDoNotAddUp() {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 7L);
    record.setField("tags", List.of("a"));
    byte[] row = RowCodec.encode(record, SCHEMA);
    row[row.length - 10] = 9; // the high byte of the element count (then 1, 4 and 1 bytes of "a")

    assertThatThrownBy(() -> RowCodec.decode(row, SCHEMA))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Cannot decode row");
  }

  @Test
  void writesListsFromListsAndArraysAndRefusesNullRequiredElements() {
    org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(SCHEMA);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      ColumnWriter embedding = ColumnWriter.forField(arrow.findField("embedding"));
      ColumnWriter tags = ColumnWriter.forField(arrow.findField("tags"));
      root.allocateNew();
      embedding.write(root.getVector("embedding"), 0, embedding.convert(new float[] {1f, 2f}));
      embedding.write(root.getVector("embedding"), 1, null);
      embedding.write(root.getVector("embedding"), 2,
          embedding.convert(Arrays.asList(3, null, "4.5")));
      root.setRowCount(3);

      assertThat(root.getVector("embedding").getObject(0).toString()).isEqualTo("[1.0,2.0]");
      assertThat(root.getVector("embedding").isNull(1)).isTrue();
      assertThat(root.getVector("embedding").getObject(2).toString())
          .isEqualTo("[3.0,null,4.5]");
      assertThatThrownBy(() -> tags.convert(Arrays.asList("a", null)))
          .hasMessage("element 1 is null but the list's elements are required");
      assertThatThrownBy(() -> embedding.convert(List.of(1.0, "x")))
          .hasMessageStartingWith("element 1: expected a floating-point number");
      assertThatThrownBy(() -> embedding.convert("1.0"))
          .hasMessageStartingWith("expected a List or an array");
    }
  }

  private void assertRoundTrip(FieldVector embedding, List<List<Float>> cells) {
    try (BigIntVector ids = new BigIntVector("id", allocator); embedding) {
      ids.allocateNew(cells.size());
      for (int i = 0; i < cells.size(); i++) {
        ids.set(i, i);
      }
      ids.setValueCount(cells.size());
      ArrowRowEncoder encoder = ArrowRowEncoder.bind(SCHEMA, List.of(1),
          Arrays.asList(ids, embedding, null, null));
      for (int i = 0; i < cells.size(); i++) {
        GenericRecord expected = GenericRecord.create(SCHEMA);
        expected.setField("id", (long) i);
        expected.setField("embedding", cells.get(i) == null ? null
            : cells.get(i).stream().map(f -> f == null ? null : f.doubleValue()).toList());
        assertThat(encoder.payload(i)).isEqualTo(RowCodec.encode(expected, SCHEMA));
        assertThat(RowCodec.decode(encoder.payload(i), SCHEMA)).isEqualTo(expected);
      }
    }
  }

  private static Field list(ArrowType list, ArrowType element) {
    return new Field("v", FieldType.nullable(list), List.of(Field.nullable("element", element)));
  }

  /** A List vector as the SDK builds one. */
  private FieldVector listVector(List<List<Float>> cells) {
    Field field = list(ArrowType.List.INSTANCE, FLOAT32);
    FieldVector vector = field.createVector(allocator);
    ColumnWriter writer = ColumnWriter.forField(field);
    vector.allocateNew();
    for (int row = 0; row < cells.size(); row++) {
      writer.write(vector, row, writer.convert(cells.get(row)));
    }
    vector.setValueCount(cells.size());
    return vector;
  }

  private LargeListVector largeListVector(List<List<Float>> cells) {
    LargeListVector vector = LargeListVector.empty("embedding", allocator);
    vector.addOrGetVector(FieldType.nullable(FLOAT32));
    vector.allocateNew();
    Float4Vector data = (Float4Vector) vector.getDataVector();
    for (int row = 0; row < cells.size(); row++) {
      if (cells.get(row) == null) {
        vector.setNull(row);
        continue;
      }
      long start = vector.startNewValue(row);
      fill(data, (int) start, cells.get(row));
      vector.endValue(row, cells.get(row).size());
    }
    vector.setValueCount(cells.size());
    return vector;
  }

  private FixedSizeListVector fixedSizeListVector(List<List<Float>> cells) {
    FixedSizeListVector vector = FixedSizeListVector.empty("embedding", 2, allocator);
    vector.addOrGetVector(FieldType.nullable(FLOAT32));
    vector.allocateNew();
    Float4Vector data = (Float4Vector) vector.getDataVector();
    for (int row = 0; row < cells.size(); row++) {
      if (cells.get(row) == null) {
        vector.setNull(row);
      } else {
        vector.setNotNull(row);
        fill(data, row * 2, cells.get(row));
      }
    }
    data.setValueCount(cells.size() * 2);
    vector.setValueCount(cells.size());
    return vector;
  }

  private static void fill(Float4Vector data, int start, List<Float> values) {
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        data.setNull(start + i);
      } else {
        data.setSafe(start + i, values.get(i));
      }
    }
  }

  @Test
  void mapsAStructColumnToAnArrowStructWithItsFields() {
    Field field = ArrowSchemas.toArrow(STRUCT_SCHEMA.findField("point"));

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
    org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(STRUCT_SCHEMA);
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
      ArrowRowEncoder encoder = ArrowRowEncoder.bind(STRUCT_SCHEMA, List.of(1), vectors);

      for (int row = 0; row < points.size(); row++) {
        GenericRecord expected = GenericRecord.create(STRUCT_SCHEMA);
        expected.setField("id", (long) row);
        if (points.get(row) != null) {
          GenericRecord value = GenericRecord.create(POINT);
          value.setField("x", ((Number) ((Map<?, ?>) points.get(row)).get("x")).doubleValue());
          value.setField("label", ((Map<?, ?>) points.get(row)).get("label"));
          expected.setField("point", value);
        }
        assertThat(encoder.payload(row)).isEqualTo(RowCodec.encode(expected, STRUCT_SCHEMA));
        assertThat(RowCodec.decode(encoder.payload(row), STRUCT_SCHEMA)).isEqualTo(expected);
      }
    }
  }

  @Test
  void skipsStructValuesWhenLocatingColumns() {
    GenericRecord point = GenericRecord.create(POINT);
    point.setField("x", 3.0);
    GenericRecord record = GenericRecord.create(STRUCT_SCHEMA);
    record.setField("id", 7L);
    record.setField("point", point);
    record.setField("score", 42);
    byte[] row = RowCodec.encode(record, STRUCT_SCHEMA);
    int[] offsets = new int[3];

    new RowFields(STRUCT_SCHEMA).locate(row, offsets);

    assertThat(RowFields.intAt(row, offsets[2])).isEqualTo(42);
    assertThat(new RowDecoder(STRUCT_SCHEMA).decode(row)).isEqualTo(record);
  }

  @Test
  void refusesUnknownAndNullRequiredFieldsWhenWritingRows() {
    ColumnWriter point =
        ColumnWriter.forField(ArrowSchemas.toArrow(STRUCT_SCHEMA.findField("point")));
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
