package io.verglas.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.table.IdentifierRules.InvalidIdentifierException;
import io.verglas.table.IdentifierRules.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IdentifierRulesTest {

  static Stream<Arguments> valid() {
    return Stream.of(
        Arguments.of(List.of("demo"), "events"),
        Arguments.of(List.of("demo"), "orders.v2"),
        Arguments.of(List.of("demo"), "..."),
        Arguments.of(List.of("demo"), ".hidden"),
        Arguments.of(List.of("a", "b", "c"), "t"),
        Arguments.of(List.of("vente"), "événements"),
        Arguments.of(List.of("数据"), "表格"),
        Arguments.of(List.of("emoji"), "\uD83D\uDE00 smile"),
        Arguments.of(List.of("ns"), "with space"),
        Arguments.of(List.of("ns"), "a`b"),
        Arguments.of(List.of("ns"), "x".repeat(IdentifierRules.MAX_LEVEL_BYTES)),
        Arguments.of(List.of("ns"), "é".repeat(IdentifierRules.MAX_LEVEL_BYTES / 2)),
        Arguments.of(Collections.nCopies(IdentifierRules.MAX_NAMESPACE_LEVELS, "n"), "t"));
  }

  @ParameterizedTest
  @MethodSource("valid")
  void allowed(List<String> namespace, String name) {
    assertThatCode(() -> IdentifierRules.validate(namespace, name)).doesNotThrowAnyException();
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of(List.of(), "t", Rule.NO_NAMESPACE, "'t': it has no namespace"),
        Arguments.of(Collections.nCopies(IdentifierRules.MAX_NAMESPACE_LEVELS + 1, "n"), "t",
            Rule.TOO_MANY_LEVELS, "it has 17 namespace levels"),
        Arguments.of(List.of("ns"), "", Rule.EMPTY, "name '' is empty"),
        Arguments.of(List.of("ns"), "  ", Rule.EMPTY, "name '  ' is only white space"),
        Arguments.of(List.of("", "b"), "t", Rule.EMPTY, "namespace level 1 '' is empty"),
        Arguments.of(List.of("a", "\t"), "t", Rule.EMPTY,
            "namespace level 2 '\\u0009' is only white space"),
        Arguments.of(List.of("ns"), "a/b", Rule.SLASH, "name 'a/b' contains '/' at index 1"),
        Arguments.of(List.of("a/b"), "t", Rule.SLASH, "namespace level 1 'a/b' contains '/'"),
        Arguments.of(List.of("ns"), "/", Rule.SLASH, "name '/' contains '/' at index 0"),
        Arguments.of(List.of("ns"), "a\0b", Rule.NUL, "name 'a\\u0000b' contains NUL at index 1"),
        Arguments.of(List.of("ns"), "a\nb", Rule.CONTROL_CHARACTER,
            "name 'a\\u000Ab' contains U+000A at index 1"),
        Arguments.of(List.of("ns"), "tab\t", Rule.CONTROL_CHARACTER, "contains U+0009 at index 3"),
        Arguments.of(List.of("ns"), "cr\r", Rule.CONTROL_CHARACTER, "contains U+000D"),
        Arguments.of(List.of("ns"), "del\u007F", Rule.CONTROL_CHARACTER, "contains U+007F"),
        Arguments.of(List.of("ns"), "c1\u0085", Rule.CONTROL_CHARACTER, "contains U+0085"),
        Arguments.of(List.of("ns"), "c1\u009F", Rule.CONTROL_CHARACTER, "contains U+009F"),
        Arguments.of(List.of("ns"), "line\u2028", Rule.CONTROL_CHARACTER, "contains U+2028"),
        Arguments.of(List.of("n\u001Bs"), "t", Rule.CONTROL_CHARACTER, "namespace level 1"),
        Arguments.of(List.of("ns"), "lone\uD800", Rule.UNPAIRED_SURROGATE,
            "contains the unpaired surrogate U+D800 at index 4"),
        Arguments.of(List.of("ns"), "\uDC00x", Rule.UNPAIRED_SURROGATE, "U+DC00 at index 0"),
        Arguments.of(List.of("ns"), ".", Rule.DOT_SEGMENT, "name '.' is a dot segment"),
        Arguments.of(List.of("ns"), "..", Rule.DOT_SEGMENT, "name '..' is a dot segment"),
        Arguments.of(List.of(".."), "t", Rule.DOT_SEGMENT, "namespace level 1 '..' is a dot"),
        Arguments.of(List.of("a.b"), "t", Rule.DOT_IN_NAMESPACE,
            "namespace level 1 'a.b' contains '.' at index 1"),
        Arguments.of(List.of("ns"), "x".repeat(IdentifierRules.MAX_LEVEL_BYTES + 1), Rule.TOO_LONG,
            "has 256 bytes"),
        Arguments.of(List.of("ns"), "é".repeat(128), Rule.TOO_LONG, "has 256 bytes"),
        Arguments.of(longNamespace(), "t", Rule.IDENTIFIER_TOO_LONG, "it has 513 bytes"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void refusedNamingTheRuleAndTheLevel(List<String> namespace, String name, Rule rule,
      String detail) {
    assertThatThrownBy(() -> IdentifierRules.validate(namespace, name))
        .isInstanceOfSatisfying(InvalidIdentifierException.class,
            e -> assertThat(e.rule()).isEqualTo(rule))
        .hasMessageStartingWith("Cannot create table '")
        .hasMessageContaining(detail)
        .hasMessageContaining("(rule " + rule.id() + ": " + rule.description() + ")");
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void messagesHoldNoControlCharacters(List<String> namespace, String name) {
    assertThatThrownBy(() -> IdentifierRules.validate(namespace, name))
        .message().doesNotContainPattern("[\\p{Cc}\u2028\u2029]");
  }

  @Test
  void aLongLevelIsCutInTheMessage() {
    assertThatThrownBy(() -> IdentifierRules.validate(List.of("ns"), "x".repeat(100_000)))
        .message().hasSizeLessThan(600).contains("(100000 characters)");
  }

  /** Two levels of 255 bytes: with the name {@code t} and two separators, 513 bytes. */
  private static List<String> longNamespace() {
    List<String> levels = new ArrayList<>();
    levels.add("x".repeat(255));
    levels.add("y".repeat(255));
    return levels;
  }
}
