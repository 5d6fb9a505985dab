package io.verglas.query.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowValues;
import io.verglas.query.QueryException;
import io.verglas.query.QueryResult;
import io.verglas.row.EveryTypeRow;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Arrow answers carry every column type a table of ours has, exactly, and refuse what they cannot. */
class ArrowAnswerTest {
  private static final Schema ALL_TYPES = EveryTypeRow.SCHEMA;

  private final BufferAllocator allocator = new RootAllocator(64L << 20);

  @AfterEach
  void close() {
    allocator.close(); // every answer released its buffers
  }

  @Test
  void everyColumnTypeRoundTripsAndTheMetadataSaysWhatTheJsonAnswerSays() throws Exception {
    GenericRecord nullsButTheId = GenericRecord.create(ALL_TYPES);
    nullsButTheId.setField("id", -1L);
    List<Object[]> rows = List.of(values(EveryTypeRow.record()), values(nullsButTheId));
    QueryResult result = new QueryResult("scan", "shop.all", 42L, List.of(Map.of(), Map.of()), true, null,
        ALL_TYPES, rows);

    try (ArrowStreamReader reader = new ArrowStreamReader(
        new ByteArrayInputStream(ArrowAnswer.encode(result, allocator)), allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(root.getSchema().getCustomMetadata()).containsEntry("verglas.kind", "scan")
          .containsEntry("verglas.table", "shop.all").containsEntry("verglas.snapshot", "42")
          .containsEntry("verglas.truncated", "true");
      assertThat(reader.loadNextBatch()).isTrue();
      assertThat(root.getRowCount()).isEqualTo(2);
      for (int c = 0; c < ALL_TYPES.columns().size(); c++) {
        IntFunction<Object> read = ArrowValues.reader(root.getVector(c), ALL_TYPES.columns().get(c).type());
        for (int r = 0; r < rows.size(); r++) {
          assertThat(comparable(read.apply(r))).as(ALL_TYPES.columns().get(c).name() + " row " + r)
              .isEqualTo(comparable(rows.get(r)[c]));
        }
      }
      assertThat(reader.loadNextBatch()).isFalse();
    }
  }

  @Test
  void kindsThatAnswerNoTableAndNestedColumnsAreRefusedWithTheReason() {
    QueryResult traverse = new QueryResult("traverse", "shop.links", 1L, List.of(), false, Map.of());
    assertThatThrownBy(() -> ArrowAnswer.encode(traverse, allocator)).isInstanceOf(QueryException.class)
        .hasMessage("Cannot answer a traverse query as application/vnd.apache.arrow.stream: only scan and"
            + " lookup answers are tables; ask for application/json")
        .extracting(e -> ((QueryException) e).status()).isEqualTo(406);

    Schema nested = new Schema(Types.NestedField.optional(1, "tags",
        Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.StringType.get())));
    QueryResult scan = new QueryResult("scan", "shop.tags", 1L, List.of(), false, null, nested, List.of());
    assertThatThrownBy(() -> ArrowAnswer.encode(scan, allocator)).isInstanceOf(QueryException.class)
        .hasMessageContaining("column tags has type map<string, string>, which Arrow answers do not"
            + " carry yet");
  }

  @Test
  void listAndStructColumnsAnswerAsArrowListsAndStructs() throws Exception {
    Types.StructType point = Types.StructType.of(
        Types.NestedField.required(4, "x", Types.DoubleType.get()),
        Types.NestedField.optional(5, "label", Types.StringType.get()));
    Schema nested = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "embedding",
            Types.ListType.ofOptional(3, Types.FloatType.get())),
        Types.NestedField.optional(6, "point", point));
    GenericRecord labelled = GenericRecord.create(point);
    labelled.setField("x", 1.5);
    labelled.setField("label", "a");
    GenericRecord bare = GenericRecord.create(point);
    bare.setField("x", -2.0);
    List<Object[]> rows = List.of(new Object[] {1L, List.of(1.5f, -2f), labelled},
        new Object[] {2L, null, null}, new Object[] {3L, List.of(), bare},
        new Object[] {4L, Arrays.asList(null, 7f), null});
    QueryResult result = new QueryResult("scan", "shop.vectors", 7L, List.of(), false, null,
        nested, rows);

    try (ArrowStreamReader reader = new ArrowStreamReader(
        new ByteArrayInputStream(ArrowAnswer.encode(result, allocator)), allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(reader.loadNextBatch()).isTrue();
      for (int c = 1; c <= 2; c++) {
        IntFunction<Object> read = ArrowValues.reader(root.getVector(c), nested.columns().get(c).type());
        for (int r = 0; r < rows.size(); r++) {
          assertThat(read.apply(r)).as(nested.columns().get(c).name() + " row " + r)
              .isEqualTo(rows.get(r)[c]);
        }
      }
    }
  }

  private static Object[] values(GenericRecord record) {
    Object[] values = new Object[record.size()];
    for (int c = 0; c < values.length; c++) {
      values[c] = record.get(c);
    }
    return values;
  }

  /** Arrays compared by content; a decimal by value; a time as written (micros). */
  private static Object comparable(Object value) {
    if (value instanceof ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return Arrays.toString(bytes);
    }
    if (value instanceof byte[] bytes) {
      return Arrays.toString(bytes);
    }
    return value;
  }
}
