package io.verglas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingsTest {
  private static final Settings<Map<String, String>> SETTINGS =
      Settings.<Map<String, String>>builder("Test", "For tests.")
          .add("catalog.", "PROPERTY=VALUE", "none", "Catalog properties.",
              (m, k, v) -> m.put(k, v))
          .add("name", "NAME", "x", "A name.", (m, k, v) -> m.put(k, v))
          .add("t.size", "N", "1", "A size.", (m, k, v) -> m.put(k, Integer.valueOf(v).toString()))
          .build();

  @Test
  void exactKeysAndKeysUnderAPrefixApplyAndOthersDoNot() {
    Map<String, String> applied = new LinkedHashMap<>();
    assertThat(SETTINGS.apply(applied, "name", "a")).isTrue();
    assertThat(SETTINGS.apply(applied, "catalog.uri", "jdbc:x")).isTrue();
    assertThat(SETTINGS.apply(applied, "catalog.", "bare prefix")).isFalse();
    assertThat(SETTINGS.apply(applied, "nam", "typo")).isFalse();
    assertThat(applied).containsExactly(Map.entry("name", "a"), Map.entry("catalog.uri", "jdbc:x"));
  }

  @Test
  void propertiesApplyUnderTheirPrefixAndUnknownOnesAreReported() {
    Properties props = new Properties();
    props.setProperty("t.size", " 7 ");
    props.setProperty("t.sise", "8");
    props.setProperty("u.size", "9");
    Map<String, String> applied = new LinkedHashMap<>();
    SETTINGS.applyProperties(applied, props, "t.");
    assertThat(applied).containsExactly(Map.entry("t.size", "7"));
    assertThat(Settings.unknownKeys(props, "t.", SETTINGS)).containsExactly("t.sise");
  }

  @Test
  void aKeyDeclaredTwiceOrWithSpacesIsRefused() {
    assertThatThrownBy(() -> Settings.<Object>builder("T", "S")
        .add("a", "N", "1", "d", (o, k, v) -> { })
        .add("a", "N", "1", "d", (o, k, v) -> { })
        .build())
        .hasMessage("Cannot declare settings: key a is declared twice");
    assertThatThrownBy(() -> Settings.<Object>builder("T", "S")
        .add("a b", "N", "1", "d", (o, k, v) -> { }))
        .hasMessage("Cannot declare a setting: invalid key 'a b'");
  }
}
