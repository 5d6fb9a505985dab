package io.verglas.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.catalog.Catalogs;
import io.verglas.query.lookup.KeyLookup;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookups by primary key through the key reader, on tables with many small row groups and pages,
 * updated and deleted by deletion vectors (V3), position delete files (V2) or equality deletes,
 * each answer compared with a model of the live rows and with the generic reader's answer.
 */
class KeyLookupTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Schema ROWS = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.DoubleType.get()),
      Types.NestedField.optional(4, "day", Types.DateType.get()),
      Types.NestedField.optional(5, "at", Types.TimestampType.withZone()),
      Types.NestedField.optional(6, "tag", Types.UUIDType.get()),
      Types.NestedField.optional(7, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(8, "flag", Types.BooleanType.get())), Set.of(1));
  private static final Schema PAIRS = new Schema(List.of(
      Types.NestedField.required(1, "region", Types.StringType.get()),
      Types.NestedField.required(2, "n", Types.IntegerType.get()),
      Types.NestedField.optional(3, "v", Types.LongType.get())), Set.of(1, 2));
  /** Small row groups and pages, so that a file has many of each; bloom filters on the key. */
  private static final Map<String, String> SMALL_GROUPS = Map.of(
      TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "4096",
      TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "20",
      TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "50",
      TableProperties.PARQUET_PAGE_ROW_LIMIT, "16",
      TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "id", "true",
      TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "region", "true");

  @TempDir Path dir;
  private Catalog catalog;
  private QueryService queries;

  @BeforeEach
  void catalog() {
    catalog = Catalogs.load("test", Map.of("type", "jdbc", "uri", "jdbc:sqlite:" + dir.resolve("c.db"),
        "warehouse", dir.resolve("wh").toUri().toString(), "jdbc.schema-version", "V1"));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("g"));
    queries = new QueryService(() -> catalog, new QueryLimits(10_000, 64 << 20, 1_000, 4, Duration.ofSeconds(30)),
        null);
  }

  @AfterEach
  void close() throws Exception {
    ((AutoCloseable) catalog).close();
  }

  @Test
  void keysOfAV3TableWithDeletionVectorsAnswerLikeTheModelAndTheGenericReader() {
    lookupsMatchTheModel("3");
  }

  @Test
  void keysOfAV2TableWithPositionDeleteFilesAnswerLikeTheModelAndTheGenericReader() {
    lookupsMatchTheModel("2");
  }

  @Test
  void keysOfAPartitionedTableArePrunedByPartitionAndAnswerLikeTheModel() {
    lookupsMatchTheModel("3", PartitionSpec.builderFor(ROWS).bucket("id", 3).identity("flag").build());
  }

  private void lookupsMatchTheModel(String formatVersion) {
    lookupsMatchTheModel(formatVersion, PartitionSpec.unpartitioned());
  }

  private void lookupsMatchTheModel(String formatVersion, PartitionSpec spec) {
    long seed = Long.getLong("seed", System.nanoTime());
    System.out.println("KeyLookupTest seed " + seed + " (format version " + formatVersion + ", " + spec + ")");
    Random random = new Random(seed);
    KeyedTable table = new KeyedTable(create("rows", ROWS, formatVersion, spec), r -> r.getField("id"));
    for (int commit = 0; commit < 4; commit++) {
      List<Record> rows = new ArrayList<>();
      Set<Long> keys = new HashSet<>();
      while (keys.size() < 120) {
        keys.add((long) random.nextInt(400));
      }
      keys.forEach(k -> rows.add(row(k, random)));
      List<Object> deleted = new ArrayList<>();
      table.model.keySet().stream().filter(k -> !keys.contains(k) && random.nextInt(10) == 0).forEach(deleted::add);
      table.commit(rows, deleted);
    }
    for (int query = 0; query < 12; query++) {
      List<Long> keys = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(query < 6 ? 2 : 30); i++) {
        keys.add((long) random.nextInt(450));   // some never written, some deleted
      }
      String keyJson = json(keys);
      List<Map<String, Object>> rows = run("{\"kind\":\"lookup\",\"table\":\"g.rows\",\"keys\":" + keyJson + "}").rows();
      assertThat(rows).as("keys %s (seed %d)", keys, seed)
          .containsExactlyInAnyOrderElementsOf(expected(table, new HashSet<>(keys)))
          .containsExactlyInAnyOrderElementsOf(run("{\"kind\":\"scan\",\"table\":\"g.rows\",\"filter\":"
              + "{\"type\":\"in\",\"term\":\"id\",\"values\":" + keyJson + "}}").rows());
    }
    // the key reader itself answers (no fallback), here for every seventh key
    Table loaded = catalog.loadTable(TableIdentifier.of("g", "rows"));
    List<Long> some = java.util.stream.LongStream.range(0, 450).filter(k -> k % 7 == 0).boxed().toList();
    List<Record> direct = new ArrayList<>();
    assertThat(KeyLookup.builder().build().lookup(loaded, loaded.currentSnapshot(), loaded.schema(), loaded.schema(),
        List.of("id"), some.stream().map(k -> List.<Object>of(k)).toList(), direct::add, () -> {})).isTrue();
    assertThat(direct).extracting(RowJson::row).as("seed %d", seed)
        .containsExactlyInAnyOrderElementsOf(expected(table, new HashSet<>(some)));
    List<Map<String, Object>> projected = run("{\"kind\":\"lookup\",\"table\":\"g.rows\",\"keys\":"
        + json(table.model.keySet().stream().limit(3).toList()) + ",\"select\":[\"at\",\"name\"]}").rows();
    assertThat(projected).hasSize(3).allSatisfy(r -> assertThat(r).containsOnlyKeys("at", "name", "id"));
  }

  @Test
  void theKeyReaderAnswersByItselfWhereItCanAndLeavesEqualityDeletesToTheGenericReader() {
    Random random = new Random(7);
    KeyedTable positional = new KeyedTable(create("positional", ROWS, "3"), r -> r.getField("id"));
    positional.commit(List.of(row(1, random), row(2, random), row(3, random)), List.of());
    positional.commit(List.of(row(2, random)), List.of(3L));
    KeyLookup lookup = KeyLookup.builder().build();
    List<Record> found = new ArrayList<>();
    Table table = catalog.loadTable(TableIdentifier.of("g", "positional"));
    assertThat(lookup.lookup(table, table.currentSnapshot(), table.schema(), table.schema(), List.of("id"),
        List.of(List.of(1L), List.of(2L), List.of(3L), List.of(9L)), found::add, () -> {})).isTrue();
    assertThat(found).extracting(RowJson::row).containsExactlyInAnyOrderElementsOf(
        expected(positional, Set.of(1L, 2L, 3L)));

    KeyedTable equality = new KeyedTable(create("equality", ROWS, "2"), r -> r.getField("id"));
    equality.commit(List.of(row(1, random), row(2, random)), List.of());
    equality.deleteByEquality(List.of(equality.model.get(1L)), 1);
    Table eq = catalog.loadTable(TableIdentifier.of("g", "equality"));
    List<Record> none = new ArrayList<>();
    assertThat(lookup.lookup(eq, eq.currentSnapshot(), eq.schema(), eq.schema(), List.of("id"),
        List.of(List.of(1L)), none::add, () -> {})).isFalse();
    assertThat(none).isEmpty();
    assertThat(run("{\"kind\":\"lookup\",\"table\":\"g.equality\",\"keys\":[1,2]}").rows())
        .containsExactlyInAnyOrderElementsOf(expected(equality, Set.of(1L, 2L)));
  }

  @Test
  void compositeKeysAreMatchedOnEveryColumn() {
    KeyedTable pairs = new KeyedTable(create("pairs", PAIRS, "3"),
        r -> List.of(r.getField("region"), r.getField("n")));
    List<Record> rows = new ArrayList<>();
    for (int n = 0; n < 100; n++) {
      rows.add(pair(n % 2 == 0 ? "eu" : "us", n, n));
      rows.add(pair("ap", n, -n));
    }
    pairs.commit(rows, List.of());
    pairs.commit(List.of(pair("eu", 4, 444)), List.of(List.of("ap", 5)));
    List<Map<String, Object>> found = run("{\"kind\":\"lookup\",\"table\":\"g.pairs\",\"keys\":["
        + "{\"region\":\"eu\",\"n\":4},{\"region\":\"us\",\"n\":4},{\"region\":\"ap\",\"n\":5},"
        + "{\"region\":\"ap\",\"n\":6},{\"region\":\"us\",\"n\":7}]}").rows();
    assertThat(found).containsExactlyInAnyOrder(Map.of("region", "eu", "n", 4, "v", 444L),
        Map.of("region", "ap", "n", 6, "v", -6L), Map.of("region", "us", "n", 7, "v", 7L));
  }

  private Table create(String name, Schema schema, String formatVersion) {
    return create(name, schema, formatVersion, PartitionSpec.unpartitioned());
  }

  private Table create(String name, Schema schema, String formatVersion, PartitionSpec spec) {
    Map<String, String> properties = new java.util.HashMap<>(SMALL_GROUPS);
    properties.put(TableProperties.FORMAT_VERSION, formatVersion);
    return catalog.createTable(TableIdentifier.of("g", name), schema, spec, properties);
  }

  private static List<Map<String, Object>> expected(KeyedTable table, Set<?> keys) {
    return table.model.entrySet().stream().filter(e -> keys.contains(e.getKey()))
        .map(e -> RowJson.row(e.getValue())).collect(Collectors.toList());
  }

  private QueryResult run(String json) {
    return queries.run(QueryRequestParser.parse(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Record row(long id, Random random) {
    GenericRecord r = GenericRecord.create(ROWS);
    r.setField("id", id);
    r.setField("name", random.nextInt(5) == 0 ? null : "name-" + Long.toHexString(random.nextLong()));
    r.setField("score", random.nextDouble());
    r.setField("day", LocalDate.ofEpochDay(random.nextInt(20_000)));
    r.setField("at", OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusSeconds(random.nextInt(1_000_000)));
    r.setField("tag", new UUID(random.nextLong(), random.nextLong()));
    r.setField("amount", BigDecimal.valueOf(random.nextInt(1_000_000), 2));
    r.setField("flag", random.nextBoolean());
    return r;
  }

  private static Record pair(String region, int n, long v) {
    GenericRecord r = GenericRecord.create(PAIRS);
    r.setField("region", region);
    r.setField("n", n);
    r.setField("v", v);
    return r;
  }
}
