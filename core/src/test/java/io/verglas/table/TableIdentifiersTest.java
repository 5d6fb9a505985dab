package io.verglas.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableIdentifiersTest {

  @Test
  void aNameWithoutDotsOrBackquotesIsWrittenAsEarlierBuildsWroteIt() {
    assertThat(TableIdentifiers.toString(List.of("demo", "events"))).isEqualTo("demo.events");
    assertThat(TableIdentifiers.toString(List.of("a", "b", "événements")))
        .isEqualTo("a.b.événements");
    assertThat(TableIdentifiers.parse("demo.events")).containsExactly("demo", "events");
    assertThat(TableIdentifiers.identifier("a.b.t"))
        .isEqualTo(TableIdentifier.of(Namespace.of("a", "b"), "t"));
  }

  @Test
  void aLevelWithADotIsQuotedSoItIsNotReadAsTwoLevels() {
    assertThat(TableIdentifiers.toString(List.of("demo", "orders.v2")))
        .isEqualTo("demo.`orders.v2`");
    assertThat(TableIdentifiers.identifier("demo.`orders.v2`"))
        .isEqualTo(TableIdentifier.of(Namespace.of("demo"), "orders.v2"));
    assertThat(TableIdentifiers.identifier("demo.orders.v2"))
        .isEqualTo(TableIdentifier.of(Namespace.of("demo", "orders"), "v2"));
    assertThat(TableIdentifiers.toString(TableIdentifier.of(Namespace.of("demo"), "orders.v2")))
        .isEqualTo("demo.`orders.v2`");
  }

  @Test
  void backquotesInsideAQuotedLevelAreDoubled() {
    assertThat(TableIdentifiers.toString(List.of("ns", "a`b.c"))).isEqualTo("ns.`a``b.c`");
    assertThat(TableIdentifiers.toString(List.of("ns", "`x`"))).isEqualTo("ns.```x```");
    assertThat(TableIdentifiers.toString(List.of("ns", ""))).isEqualTo("ns.``");
    assertThat(TableIdentifiers.parse("ns.`a``b.c`")).containsExactly("ns", "a`b.c");
    assertThat(TableIdentifiers.parse("`ns`.t")).containsExactly("ns", "t");
  }

  @Test
  void aBareLevelWithABackquoteInsideReadsAsWritten() {
    // An earlier build wrote such names unquoted (levels joined by dots).
    assertThat(TableIdentifiers.parse("ns.a`b")).containsExactly("ns", "a`b");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "a.", ".a", "a..b", "a.`b", "a.`b`c", "a.`b``"})
  void malformedNamesAreRefusedWithTheReason(String text) {
    assertThatThrownBy(() -> TableIdentifiers.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse table name '" + text + "': ");
  }

  @Test
  void parseReadsBackWhateverToStringWrote() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    String alphabet = "ab.`é /\n";
    for (int n = 0; n < 10_000; n++) {
      List<String> levels = new ArrayList<>();
      int count = 1 + random.nextInt(4);
      for (int l = 0; l < count; l++) {
        StringBuilder level = new StringBuilder();
        int length = random.nextInt(6);
        for (int c = 0; c < length; c++) {
          level.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        levels.add(level.toString());
      }
      String text = TableIdentifiers.toString(levels);
      assertThat(TableIdentifiers.parse(text)).as("seed %d: %s", seed, text).isEqualTo(levels);
    }
  }
}
