package io.verglas.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TableActionRequestsTest {
  @Test
  void alterTableRoundTripsThroughJson() {
    AlterTableRequest request = new AlterTableRequest(List.of("a", "b"), "events", List.of(
        new AlterTableRequest.NewColumn("region", Types.StringType.get(), "where"),
        new AlterTableRequest.NewColumn("amount", Types.DecimalType.of(12, 2), null)));

    String json = AlterTableRequestParser.toJson(request);

    assertThat(json).isEqualTo("{\"namespace\":[\"a\",\"b\"],\"name\":\"events\",\"addColumns\":["
        + "{\"name\":\"region\",\"type\":\"string\",\"doc\":\"where\"},"
        + "{\"name\":\"amount\",\"type\":\"decimal(12, 2)\"}]}");
    assertThat(AlterTableRequestParser.fromJson(json)).isEqualTo(request);
    assertThat(request.identifier()).isEqualTo(TableIdentifier.of("a", "b", "events"));
  }

  @Test
  void alterTableNamesWhatIsWrong() {
    assertThatThrownBy(() -> AlterTableRequestParser.fromJson("{nope"))
        .hasMessageStartingWith("Cannot parse alter-table request: not JSON");
    assertThatThrownBy(() -> AlterTableRequestParser.fromJson("{\"namespace\":[\"a\"],\"name\":\"t\"}"))
        .hasMessage("Cannot parse alter-table request: missing array addColumns");
    assertThatThrownBy(() -> AlterTableRequestParser.fromJson(
        "{\"namespace\":[\"a\"],\"name\":\"t\",\"addColumns\":[]}"))
        .hasMessage("Cannot parse alter-table request: Invalid alter-table request: no columns to add");
    assertThatThrownBy(() -> AlterTableRequestParser.fromJson(
        "{\"namespace\":[\"a\"],\"name\":\"t\",\"addColumns\":[{\"name\":\"x\",\"type\":\"list<int>\"}]}"))
        .hasMessageStartingWith("Cannot parse alter-table request: column 'x' has unknown type "
            + "'list<int>'");
  }

  @Test
  void dropTableRoundTripsThroughJson() {
    DropTableRequest request = DropTableRequest.of(TableIdentifier.of("a", "t"), true);

    assertThat(request.toJson()).isEqualTo("{\"namespace\":[\"a\"],\"name\":\"t\",\"purge\":true}");
    assertThat(DropTableRequest.fromJson(request.toJson())).isEqualTo(request);
    assertThat(DropTableRequest.fromJson("{\"namespace\":[\"a\"],\"name\":\"t\"}").purge()).isFalse();
    DropTableRequest emptied = request.withEmptyNamespaceDropped();
    assertThat(emptied.toJson()).endsWith(",\"purge\":true,\"dropEmptyNamespace\":true}");
    assertThat(DropTableRequest.fromJson(emptied.toJson())).isEqualTo(emptied);
    assertThat(request.dropEmptyNamespace()).isFalse();
    assertThatThrownBy(() -> DropTableRequest.fromJson("{\"name\":\"t\"}"))
        .hasMessageStartingWith("Cannot parse drop-table request: expected");
  }
}
