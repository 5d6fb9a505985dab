package io.verglas.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.catalog.Catalogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import io.verglas.vector.IndexPublisher;
import io.verglas.vector.VectorColumn;
import io.verglas.vector.VectorSearcher;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every query kind and its errors on real Iceberg tables (JDBC catalog on SQLite, local files). */
class QueryServiceTest {
  private static final Schema PEOPLE = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "age", Types.IntegerType.get())), Set.of(1));
  private static final Schema DOCS = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "v", Types.ListType.ofRequired(3, Types.FloatType.get()))), Set.of(1));
  private static final Schema EDGES = new Schema(
      Types.NestedField.optional(1, "dst", Types.LongType.get()),
      Types.NestedField.optional(2, "src", Types.LongType.get()),
      Types.NestedField.optional(3, "w", Types.DoubleType.get()));

  @TempDir Path dir;
  private Catalog catalog;
  private QueryService queries;
  private long firstSnapshot;

  @BeforeEach
  void tables() {
    catalog = Catalogs.load("test", Map.of("type", "jdbc", "uri", "jdbc:sqlite:" + dir.resolve("c.db"),
        "warehouse", dir.resolve("wh").toUri().toString(), "jdbc.schema-version", "V1"));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("g"));
    Table people = catalog.createTable(TableIdentifier.of("g", "people"), PEOPLE, PartitionSpec.unpartitioned(),
        Map.of("format-version", "3"));
    append(people, List.of(person(1, "ada", 36), person(2, "bob", 41), person(3, "cy", 29)));
    firstSnapshot = people.currentSnapshot().snapshotId();
    append(people, List.of(person(4, "dee", 52)));
    Table edges = catalog.createTable(TableIdentifier.of("g", "edges"), EDGES);
    // 1 -> 2 -> 4, 1 -> 3, 3 -> 5 -> 6
    append(edges, List.of(edge(1, 2, 1.0), edge(1, 3, 0.5), edge(2, 4, 2.0), edge(3, 5, 1.5), edge(5, 6, 1.0)));
    Table docs = catalog.createTable(TableIdentifier.of("g", "docs"), DOCS, PartitionSpec.unpartitioned(),
        Map.of("format-version", "3", VectorColumn.COLUMN, "v", VectorColumn.DIMENSION, "3"));
    append(docs, List.of(doc(1, 1, 0, 0), doc(2, 0, 1, 0), doc(3, 0.9f, 0.1f, 0), doc(4, 0, 0, 1)));
    queries = new QueryService(() -> catalog, new QueryLimits(100, 1 << 20, 50, 4, Duration.ofSeconds(30)),
        VectorSearcher.builder().build());
  }

  @AfterEach
  void close() throws Exception {
    ((AutoCloseable) catalog).close();
  }

  @Test
  void scanProjectsFiltersAndLimitsOneNamedSnapshot() {
    QueryResult all = run("{\"kind\":\"scan\",\"table\":\"g.people\",\"select\":[\"id\",\"name\"],"
        + "\"filter\":{\"type\":\"gt\",\"term\":\"age\",\"value\":30}}");
    assertThat(all.snapshotId()).isEqualTo(catalog.loadTable(TableIdentifier.of("g", "people")).currentSnapshot().snapshotId());
    assertThat(all.rows()).extracting(r -> r.get("name")).containsExactlyInAnyOrder("ada", "bob", "dee");
    assertThat(all.rows().get(0)).containsOnlyKeys("id", "name");
    assertThat(all.truncated()).isFalse();

    QueryResult limited = run("{\"kind\":\"scan\",\"table\":\"g.people\",\"limit\":2}");
    assertThat(limited.rows()).hasSize(2);
    assertThat(limited.truncated()).isTrue();

    QueryResult old = run("{\"kind\":\"scan\",\"table\":\"g.people\",\"snapshot\":{\"id\":" + firstSnapshot + "}}");
    assertThat(old.snapshotId()).isEqualTo(firstSnapshot);
    assertThat(old.rows()).extracting(r -> r.get("id")).containsExactlyInAnyOrder(1L, 2L, 3L);
  }

  @Test
  void lookupReturnsTheRowsOfTheKeysThatExist() {
    QueryResult found = run("{\"kind\":\"lookup\",\"table\":\"g.people\",\"keys\":[3,1,99],\"select\":[\"name\"]}");
    assertThat(found.rows()).containsExactlyInAnyOrder(Map.of("id", 1L, "name", "ada"), Map.of("id", 3L, "name", "cy"));
    assertThat(run("{\"kind\":\"lookup\",\"table\":\"g.people\",\"keys\":[{\"id\":4}]}").rows())
        .extracting(r -> r.get("age")).containsExactly(52);
  }

  @Test
  void traverseFindsVerticesEdgesAndShortestPathsWithinDepthAndFanout() {
    @SuppressWarnings("unchecked")
    Map<String, Object> graph = run("{\"kind\":\"traverse\",\"table\":\"g.edges\",\"seeds\":[1],"
        + "\"depth\":2,\"weight\":\"w\"}").extra();
    assertThat((List<Map<String, Object>>) graph.get("vertices")).extracting(v -> v.get("id") + "@" + v.get("depth"))
        .containsExactlyInAnyOrder("1@0", "2@1", "3@1", "4@2", "5@2");
    assertThat((List<Map<String, Object>>) graph.get("edges")).hasSize(4)
        .anySatisfy(e -> assertThat(e).containsEntry("src", 2L).containsEntry("dst", 4L).containsEntry("weight", 2.0));
    assertThat((List<Map<String, Object>>) graph.get("paths"))
        .anySatisfy(p -> assertThat(p).containsEntry("vertex", 5L).containsEntry("path", List.of(1L, 3L, 5L)));

    @SuppressWarnings("unchecked")
    List<Object> narrow = (List<Object>) run("{\"kind\":\"traverse\",\"table\":\"g.edges\",\"seeds\":[1],"
        + "\"depth\":1,\"fanout\":1}").extra().get("edges");
    assertThat(narrow).hasSize(1);
  }

  @Test
  void vectorQueriesUseTheSnapshotsOwnIndexOrSayTheySearchedExactly() {
    String query = "{\"kind\":\"vector\",\"table\":\"g.docs\",\"vector\":[1,0,0],\"k\":2}";
    QueryResult exact = run(query);
    assertThat(exact.extra()).containsEntry("method", "exact");
    assertThat(exact.rows()).extracting(r -> r.get("id")).containsExactly(1L, 3L);
    assertThat(exact.rows().get(0)).containsKey("_score");
    assertThat(run("{\"kind\":\"vector\",\"table\":\"g.docs\",\"vector\":[1,0,0],\"k\":1,"
        + "\"filter\":{\"type\":\"gt\",\"term\":\"id\",\"value\":1}}").rows())
        .extracting(r -> r.get("id")).containsExactly(3L);

    Table docs = catalog.loadTable(TableIdentifier.of("g", "docs"));
    IndexPublisher.builder().build().publish(docs, docs.currentSnapshot().snapshotId());
    QueryResult indexed = run(query);
    assertThat(indexed.extra()).containsEntry("method", "index");
    assertThat(indexed.rows()).extracting(r -> r.get("id")).containsExactly(1L, 3L);

    QueryResult filtered = run("{\"kind\":\"vector\",\"table\":\"g.docs\",\"vector\":[1,0,0],\"k\":1,"
        + "\"filter\":{\"type\":\"not-eq\",\"term\":\"id\",\"value\":1}}");
    assertThat(filtered.extra()).containsEntry("method", "index");
    assertThat(filtered.rows()).extracting(r -> r.get("id")).containsExactly(3L);
  }

  @Test
  void badRequestsGetTheirPreciseError() {
    assertError("{\"kind\":\"scan\",\"table\":\"g.nope\"}", 404, "Cannot find table g.nope");
    assertError("{\"kind\":\"scan\",\"table\":\"g.people\",\"select\":[\"nope\"]}", 400,
        "unknown column nope (columns: id, name, age)");
    assertError("{\"kind\":\"scan\",\"table\":\"g.people\",\"filter\":{\"type\":\"eq\",\"term\":\"nope\",\"value\":1}}",
        400, "Invalid filter for");
    assertError("{\"kind\":\"scan\",\"table\":\"g.people\",\"filter\":{\"type\":\"bogus\"}}", 400, "Invalid filter");
    assertError("{\"kind\":\"lookup\",\"table\":\"g.people\",\"keys\":[\"abc\"]}", 400, "Invalid filter");
    assertError("{\"kind\":\"lookup\",\"table\":\"g.edges\",\"keys\":[1]}", 400, "it has no primary key");
    assertError("{\"kind\":\"scan\",\"table\":\"g.people\",\"limit\":101}", 422, "at most 100 rows");
    assertError("{\"kind\":\"traverse\",\"table\":\"g.edges\",\"seeds\":[1],\"depth\":5}", 422,
        "depth 5 exceeds the node's limit of 4");
    assertError("{\"kind\":\"scan\",\"table\":\"g.people\",\"snapshot\":{\"id\":42}}", 404, "Cannot find snapshot 42");
    assertError("{\"kind\":\"scan\",\"table\":\"g.people\",\"colums\":[]}", 400, "Unknown field of a scan query: colums");
    assertError("{\"kind\":\"join\",\"table\":\"g.people\"}", 400, "Unknown query kind: join");
    assertError("{\"kind\":\"vector\",\"table\":\"g.docs\",\"vector\":[1,0]}", 400, "Cannot search g.docs");
    assertError("{\"kind\":\"vector\",\"table\":\"g.people\",\"vector\":[1,0,0]}", 400, "Cannot search g.people");
    assertError("{\"kind\":\"vector\",\"table\":\"g.docs\",\"vector\":[\"x\"]}", 400, "element 0");
    assertError("not json", 400, "Invalid query JSON");
  }

  private void assertError(String json, int status, String message) {
    assertThatThrownBy(() -> run(json)).isInstanceOfSatisfying(QueryException.class,
        e -> assertThat(e.status()).as(e.getMessage()).isEqualTo(status)).hasMessageContaining(message);
  }

  private QueryResult run(String json) {
    return queries.run(QueryRequestParser.parse(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static Record person(long id, String name, int age) {
    GenericRecord r = GenericRecord.create(PEOPLE);
    r.setField("id", id);
    r.setField("name", name);
    r.setField("age", age);
    return r;
  }

  private static Record doc(long id, float x, float y, float z) {
    GenericRecord r = GenericRecord.create(DOCS);
    r.setField("id", id);
    r.setField("v", List.of(x, y, z));
    return r;
  }

  private static Record edge(long src, long dst, double w) {
    GenericRecord r = GenericRecord.create(EDGES);
    r.setField("src", src);
    r.setField("dst", dst);
    r.setField("w", w);
    return r;
  }

  private static void append(Table table, List<Record> records) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime()).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
        .dataSchema(table.schema()).build().newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      records.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }
}
