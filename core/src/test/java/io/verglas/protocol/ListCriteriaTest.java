package io.verglas.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class ListCriteriaTest {
  @Test
  void theOldFormNamesANamespaceAndGetsTheDefaultPage() {
    assertThat(parse("")).isEqualTo(new ListCriteria(Namespace.empty(), null, 1000));
    assertThat(parse("a.b")).isEqualTo(new ListCriteria(Namespace.of("a", "b"), null, 1000));
  }

  @Test
  void jsonCarriesTheTableToContinueAfterDotsInItsNameIncluded() {
    ListCriteria criteria = new ListCriteria(Namespace.of("demo"),
        TableIdentifier.of(Namespace.of("demo"), "orders.v2"), 50);
    assertThat(ListCriteria.parse(criteria.toBytes())).isEqualTo(criteria);
    assertThat(parse("{\"limit\": 7}")).isEqualTo(new ListCriteria(Namespace.empty(), null, 7));
  }

  @Test
  void badCriteriaAreRefusedWithTheReason() {
    assertThatThrownBy(() -> parse("{\"limit\": 0}"))
        .hasMessage("Cannot list tables: page size 0 is outside 1..10000");
    assertThatThrownBy(() -> parse("{\"limit\": 10001}")).hasMessageContaining("outside 1..10000");
    assertThatThrownBy(() -> parse("{\"limit\": "))
        .hasMessageStartingWith("Cannot list tables: invalid criteria JSON");
  }

  private static ListCriteria parse(String text) {
    return ListCriteria.parse(text.getBytes(StandardCharsets.UTF_8));
  }
}
