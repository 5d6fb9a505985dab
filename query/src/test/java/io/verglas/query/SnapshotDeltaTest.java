package io.verglas.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.catalog.Catalogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delta kind on a real V3 table changed the way the materializer changes it: new data files
 * for upserted rows and deletion vectors (merged across commits, the old DV removed) for the rows
 * they replace or delete; a compaction that moves rows reports nothing.
 */
class SnapshotDeltaTest {
  private static final Schema PEOPLE = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get())), Set.of(1));
  private static final TableIdentifier ID = TableIdentifier.of("g", "people");

  @TempDir Path dir;
  private Catalog catalog;
  private QueryService queries;
  private Table table;
  /** The data files by the ids they were written with, and each file's current DV. */
  private final Map<String, DeleteFile> dvs = new HashMap<>();

  @BeforeEach
  void table() {
    catalog = Catalogs.load("test", Map.of("type", "jdbc", "uri", "jdbc:sqlite:" + dir.resolve("c.db"),
        "warehouse", dir.resolve("wh").toUri().toString(), "jdbc.schema-version", "V1"));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("g"));
    table = catalog.createTable(ID, PEOPLE, PartitionSpec.unpartitioned(), Map.of("format-version", "3"));
    queries = new QueryService(() -> catalog, new QueryLimits(100, 1 << 20, 50, 4, Duration.ofSeconds(30)), null);
  }

  @AfterEach
  void close() throws Exception {
    ((AutoCloseable) catalog).close();
  }

  @Test
  void reportsInsertsUpdatesAndDeletesBetweenAnyTwoSnapshots() {
    DataFile first = write(person(1, "ada"), person(2, "bob"), person(3, "cy"), person(4, "dee"));
    table.newAppend().appendFile(first).commit();
    long s1 = snapshot();
    // update 2, delete 3, insert 5
    DataFile second = write(person(2, "bob-2"), person(5, "eve"));
    commit(second, Map.of(first, new long[] {1, 2}));
    long s2 = snapshot();
    // update 5 (a row of this range's own file), update 1, delete 4: the DV of `first` is merged
    DataFile third = write(person(1, "ada-3"), person(5, "eve-3"));
    commit(third, Map.of(first, new long[] {0, 3}, second, new long[] {1}));
    long s3 = snapshot();

    Map<String, Object> firstStep = delta(s1, s2);
    assertThat(firstStep.get("inserted")).isEqualTo(List.of(Map.of("id", 5L, "name", "eve")));
    assertThat(firstStep.get("updated")).isEqualTo(List.of(Map.of(
        "before", Map.of("id", 2L, "name", "bob"), "after", Map.of("id", 2L, "name", "bob-2"))));
    assertThat(firstStep.get("deleted")).isEqualTo(List.of(Map.of("id", 3L, "name", "cy")));

    Map<String, Object> whole = delta(s1, s3);
    assertThat(ids(whole.get("inserted"))).containsExactly(5L);
    assertThat(whole.get("inserted")).isEqualTo(List.of(Map.of("id", 5L, "name", "eve-3")));
    assertThat(whole.get("updated")).asList().hasSize(2)
        .contains(Map.of("before", Map.of("id", 1L, "name", "ada"), "after", Map.of("id", 1L, "name", "ada-3")));
    assertThat(ids(whole.get("deleted"))).containsExactlyInAnyOrder(3L, 4L);

    Map<String, Object> fromEmpty = run("{\"kind\":\"delta\",\"table\":\"g.people\",\"from\":null,"
        + "\"snapshot\":{\"id\":" + s1 + "}}").extra();
    assertThat(ids(fromEmpty.get("inserted"))).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    assertThat(delta(s2, s2).get("inserted")).asList().isEmpty();
  }

  @Test
  void aCompactionThatMovesRowsIsNoChange() {
    DataFile first = write(person(1, "ada"), person(2, "bob"));
    table.newAppend().appendFile(first).commit();
    long before = snapshot();
    DataFile compacted = write(person(1, "ada"), person(2, "bob"));
    table.newRewrite().deleteFile(first).addFile(compacted).commit();
    Map<String, Object> delta = delta(before, snapshot());
    assertThat(delta.get("inserted")).asList().isEmpty();
    assertThat(delta.get("updated")).asList().isEmpty();
    assertThat(delta.get("deleted")).asList().isEmpty();
  }

  @Test
  void refusesASnapshotThatIsNotAnAncestorAndAMissingFrom() {
    table.newAppend().appendFile(write(person(1, "ada"))).commit();
    long s1 = snapshot();
    table.newAppend().appendFile(write(person(2, "bob"))).commit();
    long s2 = snapshot();
    assertThatThrownBy(() -> delta(s2, s1)).isInstanceOfSatisfying(QueryException.class,
        e -> assertThat(e.status()).isEqualTo(400)).hasMessageContaining("is not an ancestor of " + s1);
    assertThatThrownBy(() -> run("{\"kind\":\"delta\",\"table\":\"g.people\"}"))
        .hasMessageContaining("Missing \"from\"");
    Map<String, Object> info = run("{\"kind\":\"snapshot\",\"table\":\"g.people\"}").extra();
    assertThat(info).containsEntry("parent", s1).containsEntry("operation", "append");
    assertThat(info.get("summary")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .containsEntry("added-records", "1");
  }

  @Test
  void withoutAPrimaryKeyRowsAreInsertedOrDeletedAndAChangeOverTheRowLimitIsRefused() {
    table = catalog.createTable(TableIdentifier.of("g", "log"),
        new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())),
        PartitionSpec.unpartitioned(), Map.of("format-version", "3"));
    DataFile first = write(person(1, "ada"), person(2, "bob"));
    table.newAppend().appendFile(first).commit();
    long s1 = snapshot();
    commit(write(person(2, "bob-2")), Map.of(first, new long[] {1}));
    Map<String, Object> delta = run("{\"kind\":\"delta\",\"table\":\"g.log\",\"from\":{\"id\":"
        + s1 + "}}").extra();
    assertThat(delta.get("inserted")).isEqualTo(List.of(Map.of("id", 2L, "name", "bob-2")));
    assertThat(delta.get("updated")).asList().isEmpty();
    assertThat(delta.get("deleted")).isEqualTo(List.of(Map.of("id", 2L, "name", "bob")));

    Record[] many = new Record[101];
    for (int i = 0; i < many.length; i++) {
      many[i] = person(100 + i, "n");
    }
    table.newAppend().appendFile(write(many)).commit();
    assertThatThrownBy(() -> run("{\"kind\":\"delta\",\"table\":\"g.log\",\"from\":{\"id\":" + s1 + "}}"))
        .isInstanceOfSatisfying(QueryException.class, e -> assertThat(e.status()).isEqualTo(422))
        .hasMessageContaining("more than 100 rows changed; ask for a shorter range");
  }

  private Map<String, Object> delta(long from, long to) {
    QueryResult result = run("{\"kind\":\"delta\",\"table\":\"g.people\",\"from\":{\"id\":" + from
        + "},\"snapshot\":{\"id\":" + to + "}}");
    assertThat(result.snapshotId()).isEqualTo(to);
    assertThat(result.extra()).containsEntry("from", from);
    return result.extra();
  }

  @SuppressWarnings("unchecked")
  private static List<Long> ids(Object rows) {
    return ((List<Map<String, Object>>) rows).stream().map(r -> (Long) r.get("id")).toList();
  }

  private QueryResult run(String json) {
    return queries.run(QueryRequestParser.parse(json.getBytes(StandardCharsets.UTF_8)));
  }

  private long snapshot() {
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /**
   * Adds {@code added} and deletes the given positions of each data file with one DV per file,
   * merged with the file's previous DV, which the commit removes (a reader refuses two).
   */
  private void commit(DataFile added, Map<DataFile, long[]> positions) {
    table.refresh();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PUFFIN).build();
    BaseDeleteLoader loader = new BaseDeleteLoader(f -> table.io().newInputFile(f));
    DVFileWriter writer = new BaseDVFileWriter(files, path -> dvs.containsKey(path)
        ? loader.loadPositionDeletes(List.of(dvs.get(path)), path) : null);
    try (DVFileWriter closing = writer) {
      positions.forEach((target, rows) -> {
        for (long position : rows) {
          closing.delete(target.location(), position, table.spec(), null);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    RowDelta delta = table.newRowDelta().addRows(added)
        .validateFromSnapshot(table.currentSnapshot().snapshotId());
    for (DeleteFile dv : writer.result().deleteFiles()) {
      DeleteFile previous = dvs.put(dv.referencedDataFile(), dv);
      if (previous != null) {
        delta.removeDeletes(previous);
      }
      delta.addDeletes(dv);
    }
    delta.commit();
  }

  private DataFile write(Record... records) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime()).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
        .dataSchema(table.schema()).build().newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      for (Record record : records) {
        closing.write(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static Record person(long id, String name) {
    GenericRecord r = GenericRecord.create(PEOPLE);
    r.setField("id", id);
    r.setField("name", name);
    return r;
  }
}
