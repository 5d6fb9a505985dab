package io.verglas.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CatalogWalkPageTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  private final List<TableIdentifier> all = new ArrayList<>();

  @BeforeEach
  void catalogOfNestedNamespaces() {
    catalog.initialize("test", Map.of());
    for (String ns : List.of("b", "a", "a.z", "a.c", "a.c.d", "ab")) {
      catalog.createNamespace(Namespace.of(ns.split("\\.")));
    }
    for (String table : List.of("b.t2", "b.t1", "a.x", "a.b", "a.z.t", "a.c.t9", "a.c.d.t",
        "ab.t", "a.c.t10")) {
      String[] parts = table.split("\\.");
      TableIdentifier id = TableIdentifier.of(
          Namespace.of(java.util.Arrays.copyOf(parts, parts.length - 1)), parts[parts.length - 1]);
      catalog.createTable(id, SCHEMA);
      all.add(id);
    }
    all.sort(CatalogOrder.TABLES);
  }

  @Test
  void theWalkListsTablesInCatalogOrderAndPagesJoinWithoutGapsOrRepeats() {
    assertThat(all).extracting(TableIdentifier::toString).containsExactly(
        "a.b", "a.x", "a.c.t10", "a.c.t9", "a.c.d.t", "a.z.t", "ab.t", "b.t1", "b.t2");
    for (int size = 1; size <= all.size() + 1; size++) {
      List<TableIdentifier> joined = new ArrayList<>();
      TableIdentifier after = null;
      while (true) {
        List<TableIdentifier> page = new ArrayList<>();
        int listed = CatalogWalk.page(catalog, Namespace.empty(), after, size, page::add);
        assertThat(listed).isEqualTo(page.size()).isLessThanOrEqualTo(size);
        joined.addAll(page);
        if (listed < size) {
          break;
        }
        after = page.get(page.size() - 1);
      }
      assertThat(joined).as("page size %d", size).isEqualTo(all);
    }
  }

  @Test
  void aPageContinuesAfterATableDroppedSinceThePreviousPage() {
    TableIdentifier dropped = TableIdentifier.of(Namespace.of("a", "c"), "t9");
    catalog.dropTable(dropped);
    List<TableIdentifier> page = new ArrayList<>();
    CatalogWalk.page(catalog, Namespace.empty(), dropped, 2, page::add);
    assertThat(page).extracting(TableIdentifier::toString).containsExactly("a.c.d.t", "a.z.t");
  }

  @Test
  void aPageOfANamespaceStaysInsideIt() {
    List<TableIdentifier> page = new ArrayList<>();
    CatalogWalk.page(catalog, Namespace.of("a", "c"), null, 10, page::add);
    assertThat(page).extracting(TableIdentifier::toString)
        .containsExactly("a.c.t10", "a.c.t9", "a.c.d.t");
  }
}
