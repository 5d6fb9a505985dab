package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.verglas.catalog.Catalogs;
import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code list<float>} and a struct column end to end on the local stack: created over Flight,
 * pushed as Arrow List and Struct (the SDK's rows) and FixedSizeList (a client's own batch,
 * without the struct), materialized into Iceberg Parquet that Iceberg's generic reader reads
 * back exactly (nulls, empty lists, null elements, null struct fields), updated and deleted by
 * primary key, answered by scan and lookup as JSON and Arrow and by the SDK's rows, and indexed
 * by the vector index.
 */
class NestedColumnsITCase {
  private static final TableIdentifier EMBEDDINGS = TableIdentifier.of("shop", "embeddings");
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "embedding",
          Types.ListType.ofOptional(3, Types.FloatType.get())),
      Types.NestedField.optional(4, "meta", Types.StructType.of(
          Types.NestedField.required(5, "source", Types.StringType.get()),
          Types.NestedField.optional(6, "score", Types.DoubleType.get()))));
  private static final Map<String, Object> META_A = Map.of("source", "a", "score", 0.5);
  private static final Map<String, Object> META_B = Map.of("source", "b");

  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().build();

  @Test
  void listsTravelFromFlightToIcebergAndBackThroughQueries() throws Exception {
    EndpointsFile endpoints = local.stack().endpoints();
    try (VerglasClient client = client(endpoints)) {
      assertThatThrownBy(() -> client.createTable(request(EMBEDDINGS, List.of("embedding"),
          Map.of()))).hasMessageContaining("Cannot create table shop.embeddings: Invalid primary"
              + " key: column 'embedding' has non-primitive type list<float>");
      client.createTable(request(EMBEDDINGS, List.of("id"), Map.of()));
      Field embedding = client.tableSchema(EMBEDDINGS).findField("embedding");
      assertThat(embedding.getType()).isEqualTo(ArrowType.List.INSTANCE);
      assertThat(embedding.getChildren()).singleElement().satisfies(element ->
          assertThat(element.getType()).isEqualTo(new ArrowType.FloatingPoint(
              FloatingPointPrecision.SINGLE)));
      pushFixedSizeLists(client);
    }
    QueryEndpointITCase.write(endpoints, EMBEDDINGS, List.of(
        row(1L, List.of(1.5f, -2f, 3.25f), META_A), row(2L, null, null),
        row(3L, List.of(), META_B), row(4L, Arrays.asList(null, 7f), null)));
    Map<Long, List<Object>> expected = new TreeMap<>();
    expected.put(1L, Arrays.asList(List.of(1.5f, -2f, 3.25f), META_A));
    expected.put(2L, Arrays.asList(null, null));
    expected.put(3L, Arrays.asList(List.of(), withNullScore(META_B)));
    expected.put(4L, Arrays.asList(Arrays.asList(null, 7f), null));
    expected.put(5L, Arrays.asList(List.of(0.5f, 0.25f), null));
    expected.put(6L, Arrays.asList(null, null));
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    assertThat(awaitRows(catalog, expected)).isEqualTo(expected);

    // an update of a list and a delete of a row with one: dedup by primary key
    QueryEndpointITCase.write(endpoints, EMBEDDINGS, List.of(row(1L, List.of(9f), META_B),
        new LinkedHashMap<>(Map.of("id", 4L, "_op", "D"))));
    expected.put(1L, Arrays.asList(List.of(9f), withNullScore(META_B)));
    expected.remove(4L);
    assertThat(awaitRows(catalog, expected)).isEqualTo(expected);

    JsonNode scan = QueryEndpointITCase.query(endpoints,
        "{\"kind\":\"scan\",\"table\":\"shop.embeddings\"}");
    Map<Long, String> scanned = new TreeMap<>();
    scan.get("rows").forEach(r -> scanned.put(r.get("id").asLong(), r.get("embedding") + " "
        + r.get("meta")));
    assertThat(scanned).isEqualTo(Map.of(1L, "[9.0] {\"source\":\"b\",\"score\":null}",
        2L, "null null", 3L, "[] {\"source\":\"b\",\"score\":null}",
        5L, "[0.5,0.25] null", 6L, "null null"));
    String lookup = "{\"kind\":\"lookup\",\"table\":\"shop.embeddings\",\"keys\":[1,3,5,6]}";
    JsonNode found = QueryEndpointITCase.query(endpoints, lookup);
    assertThat(found.get("rows")).hasSize(4);
    assertThat(arrowRows(endpoints, lookup)).isEqualTo(Map.of(1L, "[9.0] {\"source\":\"b\"}",
        3L, "[] {\"source\":\"b\"}", 5L, "[0.5,0.25] null", 6L, "null null"));

    try (VerglasClient client = client(endpoints)) {
      QueryAnswer rows = client.table(EMBEDDINGS).rows(scan.get("snapshot").asLong(), null);
      Map<Long, Object> sdk = new TreeMap<>();
      rows.rows().forEach(r -> sdk.put(((Number) r.get("id")).longValue(), r.get("embedding")));
      assertThat(sdk).containsEntry(1L, List.of(9.0)).containsEntry(3L, List.of())
          .containsEntry(5L, List.of(0.5, 0.25)).containsEntry(6L, null).hasSize(5);
      assertThat(rows.rows()).filteredOn(r -> ((Number) r.get("id")).longValue() == 3L)
          .singleElement().satisfies(r -> assertThat(r.get("meta"))
              .isEqualTo(withNullScore(META_B)));
    }
    assertAListColumnGetsItsVectorIndex(endpoints);
  }

  /** Rows 5 and 6 as a client's own batch: a FixedSizeList of two floats, one row null. */
  private static void pushFixedSizeLists(VerglasClient client) {
    BufferAllocator allocator = client.allocator();
    try (BigIntVector ids = new BigIntVector("id", allocator);
        FixedSizeListVector lists = FixedSizeListVector.empty("embedding", 2, allocator)) {
      ids.allocateNew(2);
      ids.set(0, 5L);
      ids.set(1, 6L);
      ids.setValueCount(2);
      lists.addOrGetVector(FieldType.nullable(
          new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
      lists.allocateNew();
      Float4Vector floats = (Float4Vector) lists.getDataVector();
      lists.setNotNull(0);
      floats.setSafe(0, 0.5f);
      floats.setSafe(1, 0.25f);
      lists.setNull(1);
      floats.setValueCount(4);
      lists.setValueCount(2);
      try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(ids.getField(),
          lists.getField()), List.of(ids, lists), 2)) {
        client.push(EMBEDDINGS, List.of(batch));
      }
    }
  }

  /** A table whose vector column is a list<float>: its commit gets an index that answers. */
  private static void assertAListColumnGetsItsVectorIndex(EndpointsFile endpoints)
      throws Exception {
    TableIdentifier docs = TableIdentifier.of("shop", "list_docs");
    try (VerglasClient client = client(endpoints)) {
      client.createTable(request(docs, List.of("id"), Map.of("verglas.vector.column",
          "embedding", "verglas.vector.dimension", "3")));
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      rows.add(row(id, List.of((float) id, id * 0.5f, 1f), null));
    }
    QueryEndpointITCase.write(endpoints, docs, rows);
    JsonNode answer = QueryEndpointITCase.awaitIndexedAnswer(endpoints,
        "{\"kind\":\"vector\",\"table\":\"shop.list_docs\",\"vector\":[7,3.5,1],\"k\":3}");
    assertThat(answer.at("/rows/0/id").asLong()).isEqualTo(7);
  }

  /**
   * The table's id → [embedding, meta as a map] once it equals {@code expected}, or as last read
   * after 120 s.
   */
  private static Map<Long, List<Object>> awaitRows(Catalog catalog,
      Map<Long, List<Object>> expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    Map<Long, List<Object>> rows = Map.of();
    while (!rows.equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(300);
      Table table = catalog.loadTable(EMBEDDINGS);
      Map<Long, List<Object>> read = new TreeMap<>();
      if (table.currentSnapshot() != null) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record record : records) {
            Record meta = (Record) record.getField("meta");
            read.put((Long) record.getField("id"), Arrays.asList(record.getField("embedding"),
                meta == null ? null : fields(meta)));
          }
        }
      }
      rows = read;
    }
    return rows;
  }

  private static Map<String, Object> fields(Record record) {
    Map<String, Object> fields = new LinkedHashMap<>();
    record.struct().fields().forEach(f -> fields.put(f.name(), record.getField(f.name())));
    return fields;
  }

  private static Map<String, Object> withNullScore(Map<String, Object> meta) {
    Map<String, Object> fields = new LinkedHashMap<>(meta);
    fields.putIfAbsent("score", null);
    return fields;
  }

  /** The Arrow answer's id → embedding and meta (the List and Struct cells as text). */
  private static Map<Long, String> arrowRows(EndpointsFile endpoints, String json)
      throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (BufferAllocator allocator = new RootAllocator();
        ArrowStreamReader reader = new ArrowStreamReader(
            new ByteArrayInputStream(QueryEndpointITCase.arrowAnswer(endpoints, json)),
            allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(root.getSchema().findField("embedding").getType())
          .isEqualTo(ArrowType.List.INSTANCE);
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++) {
          rows.put((Long) root.getVector("id").getObject(r), root.getVector("embedding")
              .getObject(r) + " " + root.getVector("meta").getObject(r));
        }
      }
    }
    return rows;
  }

  private static Map<String, Object> row(long id, List<Float> embedding,
      Map<String, Object> meta) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.put("embedding", embedding);
    row.put("meta", meta);
    return row;
  }

  private static CreateTableRequest request(TableIdentifier table, List<String> key,
      Map<String, String> properties) {
    return new CreateTableRequest(List.of(table.namespace().levels()), table.name(), SCHEMA, key,
        PartitionSpec.unpartitioned(), properties);
  }

  private static VerglasClient client(EndpointsFile endpoints) {
    return VerglasClient.builder().uri(endpoints.flightUri()).token(endpoints.flightToken())
        .queryEndpoint(endpoints.s3Endpoint(), endpoints.catalogToken())
        .build();
  }
}
