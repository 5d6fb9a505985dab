package io.verglas.materializer.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class VerglasTablesTest {

  @Test
  void theNameCarriedThroughTheJobReadsBackAsTheWalHeadersLevels() {
    String name = VerglasTables.name(List.of("demo", "orders.v2"));
    assertThat(VerglasTables.identifier(name))
        .isEqualTo(TableIdentifier.of(Namespace.of("demo"), "orders.v2"));
    assertThat(VerglasTables.identifier(VerglasTables.name(List.of("demo", "orders", "v2"))))
        .isEqualTo(TableIdentifier.of(Namespace.of("demo", "orders"), "v2"));
  }

  @Test
  void namesInStateOfEarlierBuildsReadAsTheyDid() {
    // Earlier builds joined the levels with dots and nothing else.
    assertThat(VerglasTables.name(List.of("db", "users"))).isEqualTo("db.users");
    assertThat(VerglasTables.identifier("db.users")).isEqualTo(TableIdentifier.of("db", "users"));
    assertThat(VerglasTables.identifier("db.a`b")).isEqualTo(TableIdentifier.of("db", "a`b"));
    assertThat(VerglasTables.identifier("db.`x"))
        .isEqualTo(TableIdentifier.of(Namespace.of("db"), "`x"));
  }
}
