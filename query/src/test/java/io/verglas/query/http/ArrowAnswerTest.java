package io.verglas.query.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowValues;
import io.verglas.query.QueryException;
import io.verglas.query.QueryResult;
import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Arrow answers carry every column type a table of ours has, exactly, and refuse what they cannot. */
class ArrowAnswerTest {
  private static final Schema ALL_TYPES = new Schema(
      Types.NestedField.required(1, "b", Types.BooleanType.get()),
      Types.NestedField.required(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "l", Types.LongType.get()),
      Types.NestedField.optional(4, "f", Types.FloatType.get()),
      Types.NestedField.optional(5, "d", Types.DoubleType.get()),
      Types.NestedField.optional(6, "day", Types.DateType.get()),
      Types.NestedField.optional(7, "t", Types.TimeType.get()),
      Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(9, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(10, "s", Types.StringType.get()),
      Types.NestedField.optional(11, "u", Types.UUIDType.get()),
      Types.NestedField.optional(12, "fx", Types.FixedType.ofLength(3)),
      Types.NestedField.optional(13, "bin", Types.BinaryType.get()),
      Types.NestedField.optional(14, "dec", Types.DecimalType.of(12, 3)));

  private final BufferAllocator allocator = new RootAllocator(64L << 20);

  @AfterEach
  void close() {
    allocator.close(); // every answer released its buffers
  }

  @Test
  void everyColumnTypeRoundTripsAndTheMetadataSaysWhatTheJsonAnswerSays() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {true, 7, 1L << 40, 1.5f, 2.25, LocalDate.of(2026, 12, 2), LocalTime.of(10, 11, 12, 13_000),
        LocalDateTime.of(2026, 12, 2, 10, 0, 0, 5_000), OffsetDateTime.of(2026, 12, 2, 10, 0, 0, 0, ZoneOffset.UTC),
        "grüß", UUID.fromString("00112233-4455-6677-8899-aabbccddeeff"), new byte[] {1, 2, 3},
        ByteBuffer.wrap(new byte[] {9, 8}), new BigDecimal("12345.678")});
    rows.add(new Object[] {false, -1, null, null, null, null, null, null, null, null, null, null, null, null});
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
        Types.ListType.ofOptional(2, Types.StringType.get())));
    QueryResult scan = new QueryResult("scan", "shop.tags", 1L, List.of(), false, null, nested, List.of());
    assertThatThrownBy(() -> ArrowAnswer.encode(scan, allocator)).isInstanceOf(QueryException.class)
        .hasMessageContaining("column tags has type list<string>, which Arrow answers do not carry yet");
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
