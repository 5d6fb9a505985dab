package io.verglas.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogsTest {
  @Test
  void ourProcessesPoolConnectionsToPostgresqlUnlessTheyChoose() {
    Map<String, String> postgres = Catalogs.jdbc("jdbc:postgresql://127.0.0.1:5432/test", "s3://b/w",
        Map.of());
    assertThat(Catalogs.forOurProcesses(postgres))
        .containsEntry("clients", Catalogs.POSTGRESQL_CLIENTS)
        .containsEntry(Catalogs.HTTP_CLIENT_TYPE, "urlconnection");
    assertThat(Catalogs.forOurProcesses(Map.of("uri", "jdbc:postgresql://h/db", "clients", "3")))
        .containsEntry("clients", "3");
    assertThat(Catalogs.forOurProcesses(Catalogs.sqlite("/tmp/c.db", "s3://b/w", Map.of())))
        .doesNotContainKey("clients");
    assertThat(postgres).as("advertised properties stay as Iceberg's clients expect")
        .doesNotContainKey("clients");
  }
}
