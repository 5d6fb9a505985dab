package io.verglas.events.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.CatalogEvent;
import io.verglas.events.TestingEvents;
import org.junit.jupiter.api.Test;

class EventFilterTest {
  private final CatalogEvent dotted = TestingEvents.commit("demo.`orders.v2`", 1);
  private final CatalogEvent nested = TestingEvents.commit("demo.orders.v2", 2);
  private final CatalogEvent plain = TestingEvents.commit("demo.orders", 3);

  @Test
  void aTableWhoseNameHoldsADotIsNamedQuotedAndNotConfusedWithANestedOne() {
    assertThat(dotted.table()).containsExactly("demo", "orders.v2");
    assertThat(dotted.subject()).isEqualTo("demo.`orders.v2`");
    EventFilter filter = new EventFilter("demo.`orders.v2`", null);
    assertThat(filter.test(dotted)).isTrue();
    assertThat(filter.test(nested)).isFalse();
    assertThat(new EventFilter("demo.orders.v2", null).test(dotted)).isFalse();
    assertThat(new EventFilter("demo.orders.v2", null).test(nested)).isTrue();
  }

  @Test
  void aNamespaceMatchesItsTablesAndThoseOfItsNestedNamespacesByLevel() {
    EventFilter demo = new EventFilter(null, "demo");
    assertThat(demo.test(dotted)).isTrue();
    assertThat(demo.test(nested)).isTrue();
    assertThat(demo.test(plain)).isTrue();
    EventFilter orders = new EventFilter(null, "demo.orders");
    assertThat(orders.test(nested)).isTrue();
    assertThat(orders.test(plain)).as("a table is not its own namespace").isFalse();
    assertThat(orders.test(dotted)).as("orders.v2 is a name, not a namespace").isFalse();
    assertThat(new EventFilter(null, "dem").test(plain)).isFalse();
  }

  @Test
  void aMalformedNameIsRefused() {
    assertThatThrownBy(() -> new EventFilter("demo.`orders", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot parse table name 'demo.`orders'");
  }
}
