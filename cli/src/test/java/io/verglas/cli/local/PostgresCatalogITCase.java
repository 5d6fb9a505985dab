package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.Catalogs;
import io.verglas.catalog.JdbcMetadataLocations;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The local stack on a PostgreSQL catalog (the machine's server at 127.0.0.1:5432, database
 * {@code test}, a schema of its own per run): tables created over Flight, rows committed by the
 * materializer and read back through the catalog endpoints.json advertises, the prefix indexes
 * in place, and everything still there after a restart.
 */
class PostgresCatalogITCase {
  private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private final String schema = "vg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private final String uri = SERVER + "&currentSchema=" + schema;
  /** Started by the test, once the schema exists. */
  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().startedByTest()
      .options(config -> config.catalogUri(uri)).build();

  @BeforeEach
  void createSchema() throws Exception {
    sql("CREATE SCHEMA " + schema);
  }

  @AfterEach
  void dropSchema() throws Exception {
    local.stop();
    sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  @Test
  void theStackKeepsItsTablesInPostgresql() throws Exception {
    EndpointsFile endpoints = local.start().endpoints();
    assertThat(endpoints.catalogProperties()).containsEntry("uri", uri).containsEntry("type", "jdbc");
    TestingOrders.push(endpoints, 0, 500);
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    assertThat(TestingOrders.awaitRows(catalog, 500)).isEqualTo(500);
    assertThat(indexes()).contains("verglas_iceberg_tables_namespace_prefix_name",
        "verglas_iceberg_namespace_properties_prefix");
    Map<TableIdentifier, String> locations = new HashMap<>();
    new JdbcMetadataLocations(endpoints.catalogName(), endpoints.catalogProperties()).forEach(locations::put);
    assertThat(locations).containsEntry(TestingOrders.ORDERS, ((HasTableOperations) catalog
        .loadTable(TestingOrders.ORDERS)).operations().current().metadataFileLocation());

    local.stop();
    EndpointsFile restarted = local.start().endpoints();
    TestingOrders.push(restarted, 500, 250);
    Catalog reopened = Catalogs.load(endpoints.catalogName(), restarted.catalogProperties());
    assertThat(TestingOrders.awaitRows(reopened, 750)).as("after a restart").isEqualTo(750);
  }

  private List<String> indexes() throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(SERVER);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema + "'")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  private static void sql(String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(SERVER); Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
