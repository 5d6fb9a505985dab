package io.verglas.ingest.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.ingest.table.TableCache;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.CreateTableRequestParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class CreateTableActionTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()));

  /**
   * Loses the race to create a namespace the way Iceberg's JDBC catalog does on PostgreSQL: the
   * namespace is there (the winner created it), the call fails with a SQL error.
   */
  private static final class TestingRacingCatalog extends InMemoryCatalog {
    private final boolean winnerCreates;

    TestingRacingCatalog(boolean winnerCreates) {
      this.winnerCreates = winnerCreates;
      initialize("racing", Map.of());
    }

    @Override
    public void createNamespace(Namespace namespace, Map<String, String> metadata) {
      if (winnerCreates) {
        super.createNamespace(namespace, metadata);
      }
      throw new IllegalStateException("Failed to execute: INSERT INTO iceberg_namespace_properties:"
          + " duplicate key value violates unique constraint");
    }
  }

  private static byte[] request(String table) {
    return CreateTableRequestParser.toJson(new CreateTableRequest(List.of("scale"), table, SCHEMA,
        List.of("id"), PartitionSpec.unpartitioned(), Map.of())).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aNamespaceCreatedConcurrentlyIsUsedNotAFailure() {
    TestingRacingCatalog catalog = new TestingRacingCatalog(true);
    CreateTableAction action = new CreateTableAction(catalog, new TableCache(catalog, Duration.ofSeconds(10)));

    action.run(request("t0000001"));

    assertThat(catalog.tableExists(TableIdentifier.of("scale", "t0000001"))).isTrue();
  }

  @Test
  void aNamespaceThatCannotBeCreatedStillFailsTheRequest() {
    TestingRacingCatalog catalog = new TestingRacingCatalog(false);
    CreateTableAction action = new CreateTableAction(catalog, new TableCache(catalog, Duration.ofSeconds(10)));

    assertThatThrownBy(() -> action.run(request("t0000001")))
        .hasMessageContaining("duplicate key");
    assertThat(catalog.namespaceExists(Namespace.of("scale"))).isFalse();
  }

  @Test
  void aCreatedTableIsNotCachedButItsFirstUseLoadsIt() {
    java.util.concurrent.atomic.AtomicInteger loads = new java.util.concurrent.atomic.AtomicInteger();
    InMemoryCatalog catalog = new InMemoryCatalog() {
      @Override
      public org.apache.iceberg.Table loadTable(TableIdentifier identifier) {
        loads.incrementAndGet();
        return super.loadTable(identifier);
      }
    };
    catalog.initialize("counting", Map.of());
    TableCache tables = new TableCache(catalog, Duration.ofSeconds(10));
    CreateTableAction action = new CreateTableAction(catalog, tables);

    action.run(request("t0000002"));
    int afterCreate = loads.get();
    tables.get(TableIdentifier.of("scale", "t0000002"));

    assertThat(loads.get()).as("the first use loads the created table").isEqualTo(afterCreate + 1);
  }
}
