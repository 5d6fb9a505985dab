package io.verglas.ingest.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.ingest.TestVectors;
import io.verglas.ingest.table.IngestTable;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchValidatorTest {
  private static final org.apache.iceberg.Schema SCHEMA = new org.apache.iceberg.Schema(
      List.of(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "note", Types.StringType.get())),
      java.util.Set.of(1));
  private static final IngestTable KEYED = new IngestTable(TableIdentifier.of("demo", "events"),
      "uuid-1", "s3://w/demo/events", 3, SCHEMA, List.of("id"), true);
  private static final IngestTable APPEND_ONLY = new IngestTable(TableIdentifier.of("demo", "log"),
      "uuid-2", "s3://w/demo/log", 3, new org.apache.iceberg.Schema(SCHEMA.columns()), List.of(), true);

  private static final IngestTable LISTS = new IngestTable(TableIdentifier.of("demo", "vectors"),
      "uuid-3", "s3://w/demo/vectors", 3, new org.apache.iceberg.Schema(List.of(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "embedding",
              Types.ListType.ofOptional(3, Types.DoubleType.get())),
          Types.NestedField.optional(4, "tags", Types.ListType.ofRequired(5,
              Types.StringType.get())),
          Types.NestedField.optional(6, "score", Types.LongType.get())), java.util.Set.of(1)),
      List.of("id"), true);
  private static final IngestTable STRUCTS = new IngestTable(TableIdentifier.of("demo", "places"),
      "uuid-4", "s3://w/demo/places", 3, new org.apache.iceberg.Schema(List.of(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "point", Types.StructType.of(
              Types.NestedField.required(3, "x", Types.DoubleType.get()),
              Types.NestedField.optional(4, "label", Types.StringType.get())))),
          java.util.Set.of(1)), List.of("id"), true);
  private static final ArrowType FLOAT32 = new ArrowType.FloatingPoint(
      org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE);

  private final BufferAllocator allocator = new RootAllocator();
  private final TestVectors vectors = new TestVectors(allocator);
  private final BatchValidator validator = new BatchValidator(new BatchLimits(100, 1 << 20));

  @AfterEach
  void release() throws Exception {
    vectors.close();
    allocator.close();
  }

  @Test
  void acceptsAMatchingBatchWithWideningAndWithoutOptionalColumns() {
    VectorSchemaRoot batch = root(ints("id", 1, 2), strings("name", "a", "b"));
    ColumnPlan plan = validator.plan(batch.getSchema(), KEYED);

    assertThat(plan.ok()).isTrue();
    validator.validate(batch, plan, 0);
  }

  @Test
  void namesUnknownDuplicateAndMistypedColumnsAndAMissingKey() {
    Schema schema = new Schema(List.of(utf8("name"), utf8("name"), utf8("nope"), utf8("note"),
        Field.nullable("_op", new ArrowType.Int(32, true))));
    Schema mistyped = new Schema(List.of(utf8("id"), utf8("name")));

    ColumnPlan plan = validator.plan(schema, KEYED);

    assertThat(plan.ok()).isFalse();
    assertThat(plan.problems().describe()).isEqualTo("4 problems: "
        + "column 'name': appears more than once (fields 0 and 1); "
        + "column 'nope': unknown column; demo.events has columns [id, name, note]; "
        + "column '_op': must be Utf8 ('U' or 'D') but got Arrow Int(32, true); "
        + "column 'id': primary key column is missing");
    assertThat(validator.plan(mistyped, KEYED).problems().describe())
        .isEqualTo("1 problem: column 'id': expected long but got Arrow Utf8 (accepted: "
            + "Int(8|16|32|64, signed))");
  }

  @Test
  void namesNullKeysNullRequiredCellsAndBadOpsRowByRow() {
    VectorSchemaRoot batch = root(longs("id", 1L, null, 3L, 4L), strings("name", "a", "b", null, null),
        strings("_op", null, "U", "X", "D"));
    ColumnPlan plan = validator.plan(batch.getSchema(), KEYED);

    assertThatThrownBy(() -> validator.validate(batch, plan, 7))
        .isInstanceOf(InvalidBatchException.class)
        .hasMessage("Cannot write batch 7 to demo.events: 3 problems: "
            + "row 1, column 'id': null in primary key column; "
            + "row 2, column '_op': invalid value 'X' (expected 'U', 'D' or null); "
            + "row 2, column 'name': null in required column");
  }

  @Test
  void deletesNeedOnlyTheKey() {
    VectorSchemaRoot onlyKeys = root(longs("id", 1L, 2L), strings("_op", "D", "D"));
    ColumnPlan plan = validator.plan(onlyKeys.getSchema(), KEYED);
    assertThat(plan.ok()).isTrue();
    validator.validate(onlyKeys, plan, 0);

    VectorSchemaRoot mixed = root(longs("id", 1L, 2L), strings("_op", "D", null));
    assertThatThrownBy(() -> validator.validate(mixed, validator.plan(mixed.getSchema(), KEYED), 0))
        .hasMessageEndingWith("1 problem: row 1, column 'name': required column is missing "
            + "(only rows with _op 'D' may omit it)");
  }

  @Test
  void refusesDeletesOnAppendOnlyTables() {
    VectorSchemaRoot batch = root(longs("id", 1L), strings("name", "a"), strings("_op", "D"));

    assertThatThrownBy(() -> validator.validate(batch, validator.plan(batch.getSchema(), APPEND_ONLY), 0))
        .hasMessageEndingWith("row 0, column '_op': 'D' (delete) needs a primary key but demo.log "
            + "is append-only");
  }

  @Test
  void listsTenProblemsThenCountsTheRest() {
    Long[] ids = new Long[25];
    VectorSchemaRoot batch = root(longs("id", ids), strings("name", new String[25]));

    assertThatThrownBy(() -> validator.validate(batch, validator.plan(batch.getSchema(), KEYED), 0))
        .hasMessageStartingWith("Cannot write batch 0 to demo.events: 50 problems: row 0, column "
            + "'id': null in primary key column; row 0, column 'name': null in required column; "
            + "row 1, column 'id'")
        .hasMessageEndingWith("row 4, column 'name': null in required column; and 40 more");
  }

  @Test
  void enforcesTheBatchLimits() {
    BatchValidator small = new BatchValidator(new BatchLimits(2, 32));
    VectorSchemaRoot batch = root(longs("id", 1L, 2L, 3L), strings("name", "a", "b", "c"));

    assertThatThrownBy(() -> small.validate(batch, small.plan(batch.getSchema(), KEYED), 0))
        .hasMessageContaining("batch has 3 rows but at most 2 are allowed; split it")
        .hasMessageMatching(".*batch has \\d+ bytes of Arrow buffers but at most 32 are allowed.*");
  }

  @Test
  void limitsCellsOfPlainAndLargeStrings() {
    BatchValidator small = new BatchValidator(new BatchLimits(100, 1 << 20, 4));
    org.apache.arrow.vector.LargeVarCharVector large =
        vectors.track(new org.apache.arrow.vector.LargeVarCharVector("name", allocator));
    large.allocateNew();
    large.setSafe(0, "abcd".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    large.setSafe(1, "abcde".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    large.setValueCount(2);
    VectorSchemaRoot batch = root(longs("id", 1L, 2L), large, strings("note", "1234", "12345"));

    assertThatThrownBy(() -> small.validate(batch, small.plan(batch.getSchema(), KEYED), 0))
        .hasMessage("Cannot write batch 0 to demo.events: 2 problems: row 1, column 'name': value "
            + "has 5 bytes but at most 4 are allowed per cell; row 1, column 'note': value has 5 "
            + "bytes but at most 4 are allowed per cell");
    VectorSchemaRoot fits = root(longs("id", 1L), strings("name", "abcd"));
    small.validate(fits, small.plan(fits.getSchema(), KEYED), 0);
  }

  @Test
  void acceptsValidUtf8AndNamesMalformedCellsOfPlainAndLargeStrings() {
    byte[] malformed = "abcdefgh-ijk\u00e9".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    malformed = java.util.Arrays.copyOf(malformed, malformed.length - 1);
    org.apache.arrow.vector.LargeVarCharVector large =
        vectors.track(new org.apache.arrow.vector.LargeVarCharVector("name", allocator));
    large.allocateNew();
    large.setSafe(0, "naïve ✓ 日本".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    large.setSafe(1, malformed);
    // An ASCII last cell: the malformed bytes must be found by the word scan, not the tail.
    large.setSafe(2, "ascii tail of 16".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    large.setValueCount(3);
    VectorSchemaRoot batch = root(longs("id", 1L, 2L, 3L), large,
        strings("note", "plain ascii only, longer than a word", "ok", "ok"));

    assertThatThrownBy(() -> validator.validate(batch, validator.plan(batch.getSchema(), KEYED),
        0)).hasMessage("Cannot write batch 0 to demo.events: 1 problem: row 1, column 'name': "
            + "value is not valid UTF-8 (13 bytes, malformed from byte 12)");
    VectorSchemaRoot valid = root(longs("id", 1L), strings("name", "naïve ✓ 日本"),
        strings("note", "ascii"));
    validator.validate(valid, validator.plan(valid.getSchema(), KEYED), 0);
  }

  @Test
  void acceptsListsOfAWideningElementWithNullsEmptyListsAndNullElements() {
    VectorSchemaRoot batch = root(longs("id", 1L, 2L, 3L),
        vectors.lists("embedding", FLOAT32, List.of(1.5f, 2f), null,
            java.util.Arrays.asList(null, 3f)),
        vectors.lists("tags", ArrowType.Utf8.INSTANCE, List.of("a"), List.of(), null));
    ColumnPlan plan = validator.plan(batch.getSchema(), LISTS);

    assertThat(plan.ok()).isTrue();
    validator.validate(batch, plan, 0);
  }

  @Test
  void namesListsOfTheWrongElementAndListsSentForOtherColumns() {
    Schema schema = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
        list("embedding", ArrowType.Utf8.INSTANCE), Field.nullable("tags", FLOAT32),
        list("score", new ArrowType.Int(64, true))));

    assertThat(validator.plan(schema, LISTS).problems().describe()).isEqualTo("3 problems: "
        + "column 'embedding': list element: expected double but got Arrow Utf8 (accepted: "
        + "FloatingPoint(SINGLE|DOUBLE)); "
        + "column 'tags': expected list<string> (an Arrow List, LargeList or FixedSizeList) "
        + "but got Arrow FloatingPoint(SINGLE); "
        + "column 'score': nested Arrow type List is not supported: the column is long");
  }

  @Test
  void namesNullElementsOfRequiredElementsRowByRowExceptOnDeletes() {
    VectorSchemaRoot batch = root(longs("id", 1L, 2L, 3L, 4L),
        vectors.lists("tags", ArrowType.Utf8.INSTANCE, List.of("a"),
            java.util.Arrays.asList("b", "c", null), null, java.util.Arrays.asList((Object) null)),
        strings("_op", "U", "U", "U", "D"));
    ColumnPlan plan = validator.plan(batch.getSchema(), LISTS);

    assertThatThrownBy(() -> validator.validate(batch, plan, 2))
        .isInstanceOf(InvalidBatchException.class)
        .hasMessage("Cannot write batch 2 to demo.vectors: 1 problem: row 1, column 'tags': "
            + "element 2 is null but the list's elements are required");
  }

  @Test
  void checksTheValuesOfElementsAsOfColumns() {
    BatchValidator small = new BatchValidator(new BatchLimits(100, 1 << 20, 4));
    VectorSchemaRoot batch = root(longs("id", 1L, 2L),
        vectors.lists("tags", ArrowType.Utf8.INSTANCE, List.of("ok"), List.of("abc", "too long")));

    assertThatThrownBy(() -> small.validate(batch, small.plan(batch.getSchema(), LISTS), 0))
        .hasMessage("Cannot write batch 0 to demo.vectors: 1 problem: row 1, column 'tags': "
            + "element 1: value has 8 bytes but at most 4 are allowed per cell");
  }

  @Test
  void acceptsStructsOfWideningFieldsWithoutOptionalFieldsAndNamesBadShapes() {
    VectorSchemaRoot batch = root(longs("id", 1L, 2L), vectors.structs("point",
        List.of(Field.nullable("x", FLOAT32)), java.util.Map.of("x", 1.5f), null));
    ColumnPlan plan = validator.plan(batch.getSchema(), STRUCTS);
    assertThat(plan.ok()).isTrue();
    validator.validate(batch, plan, 0);

    Schema missing = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
        structField(utf8("label"))));
    Schema mistyped = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
        structField(utf8("x"), utf8("nope"))));
    assertThat(validator.plan(missing, STRUCTS).problems().describe()).isEqualTo("1 problem: "
        + "column 'point': struct field 'x': required field is missing");
    assertThat(validator.plan(mistyped, STRUCTS).problems().describe()).isEqualTo("1 problem: "
        + "column 'point': struct field 'x': expected double but got Arrow Utf8");
  }

  @Test
  void namesNullRequiredFieldsOfStructsThatAreNotNullExceptOnDeletes() {
    java.util.Map<String, Object> nullX = new java.util.HashMap<>();
    nullX.put("x", null);
    nullX.put("label", "a");
    VectorSchemaRoot batch = root(longs("id", 1L, 2L, 3L, 4L), vectors.structs("point",
            List.of(Field.nullable("x", FLOAT32), utf8("label")), java.util.Map.of("x", 1f),
            nullX, null, nullX),
        strings("_op", "U", "U", "U", "D"));
    ColumnPlan plan = validator.plan(batch.getSchema(), STRUCTS);

    assertThatThrownBy(() -> validator.validate(batch, plan, 0))
        .hasMessage("Cannot write batch 0 to demo.places: 1 problem: row 1, column 'point.x': "
            + "null in required column");
  }

  private static Field structField(Field... children) {
    return new Field("point", org.apache.arrow.vector.types.pojo.FieldType.nullable(
        ArrowType.Struct.INSTANCE), List.of(children));
  }

  private static Field list(String name, ArrowType element) {
    return new Field(name, org.apache.arrow.vector.types.pojo.FieldType.nullable(
        ArrowType.List.INSTANCE), List.of(Field.nullable("element", element)));
  }

  private VectorSchemaRoot root(FieldVector... vectors) {
    return this.vectors.root(vectors);
  }

  private FieldVector longs(String name, Long... values) {
    return vectors.longs(name, values);
  }

  private FieldVector ints(String name, int... values) {
    return vectors.ints(name, values);
  }

  private static Field utf8(String name) {
    return Field.nullable(name, ArrowType.Utf8.INSTANCE);
  }

  private FieldVector strings(String name, String... values) {
    return vectors.strings(name, values);
  }
}
