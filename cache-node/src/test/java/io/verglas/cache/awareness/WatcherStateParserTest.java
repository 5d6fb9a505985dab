package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WatcherStateParserTest {
  private static final WatcherState STATE = new WatcherState("http://127.0.0.1:9092/events", 42,
      tables("db.orders", "s3://warehouse/db/orders/metadata/00003-a.metadata.json",
          "db.events", "s3://warehouse/db/events/metadata/00007-b.metadata.json"));

  @Test
  void readsAndWritesTheVersionOneGoldenFile() throws IOException {
    String golden = golden("watcher-state-v1.json");
    assertThat(WatcherStateParser.fromJson(golden)).isEqualTo(STATE);
    assertThat(WatcherStateParser.toJson(STATE)).isEqualTo(golden);
  }

  @Test
  void keepsTheTablesInOrder() {
    WatcherState read = WatcherStateParser.fromJson(WatcherStateParser.toJson(STATE));
    assertThat(read.tables().keySet()).containsExactly("db.orders", "db.events");
  }

  @Test
  void refusesANewerFormat() {
    assertThatThrownBy(() -> WatcherStateParser.fromJson(
        "{\"format-version\":2,\"feed\":\"f\",\"sequence\":1,\"tables\":{}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read watcher state: unsupported format-version 2 (expected 1)");
  }

  @Test
  void refusesWhatIsNotAState() {
    for (String bad : new String[] {"", "[]", "{\"format-version\":1}", "not json",
        "{\"format-version\":1,\"feed\":\"f\",\"sequence\":1,\"tables\":{\"t\":3}}",
        "{\"format-version\":1,\"feed\":\"f\",\"sequence\":-1,\"tables\":{}}"}) {
      assertThatThrownBy(() -> WatcherStateParser.fromJson(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  static String golden(String name) throws IOException {
    try (InputStream in = WatcherStateParserTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Map<String, String> tables(String... pairs) {
    Map<String, String> tables = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      tables.put(pairs[i], pairs[i + 1]);
    }
    return tables;
  }
}
