package io.verglas.cli.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RowSourcesTest {
  @TempDir Path dir;

  @Test
  void csvHandlesQuotesCommasLineBreaksAndNulls() throws Exception {
    Path file = dir.resolve("rows.csv");
    Files.writeString(file, "id,name,_op\r\n1,\"a, \"\"quoted\"\"\nname\",\n2,,D\n3,\"\",U");
    List<Map<String, Object>> rows = readAll(new CsvRowSource(file));

    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).containsEntry("id", "1").containsEntry("name", "a, \"quoted\"\nname");
    assertThat(rows.get(0).get("_op")).isNull();
    assertThat(rows.get(1).get("name")).isNull();
    assertThat(rows.get(1)).containsEntry("_op", "D");
    assertThat(rows.get(2)).containsEntry("name", "");
  }

  @Test
  void csvNamesTheBadRecord() throws Exception {
    Path file = dir.resolve("bad.csv");
    Files.writeString(file, "id,name\n1,a\n2,b,extra\n");
    try (CsvRowSource source = new CsvRowSource(file)) {
      source.next();
      assertThatThrownBy(source::next).hasMessageContaining("line 3").hasMessageContaining("3 fields");
    }
    Path empty = dir.resolve("empty.csv");
    Files.writeString(empty, "");
    assertThatThrownBy(() -> new CsvRowSource(empty)).hasMessageContaining("header row is required");
  }

  @Test
  void jsonLinesKeepNumbersExactAndNameBadLines() throws Exception {
    Path file = dir.resolve("rows.jsonl");
    Files.writeString(file, "{\"id\": 12345678901234, \"amount\": 1.10, \"ok\": true}\n\n{\"id\": 2, \"name\": null}\n"
        + "{\"id\": 3, \"embedding\": [1.5, null, 2], \"tags\": [], \"meta\": {\"source\": \"a\", \"n\": null}}\n");
    List<Map<String, Object>> rows = readAll(new JsonLinesRowSource(file));

    assertThat(rows.get(0)).containsEntry("id", BigInteger.valueOf(12345678901234L))
        .containsEntry("amount", new BigDecimal("1.10")).containsEntry("ok", true);
    assertThat(rows.get(1)).containsKey("name");
    assertThat(rows.get(2)).containsEntry("embedding", java.util.Arrays.asList(new BigDecimal("1.5"),
        null, BigInteger.TWO)).containsEntry("tags", List.of());
    Map<String, Object> meta = new java.util.LinkedHashMap<>();
    meta.put("source", "a");
    meta.put("n", null);
    assertThat(rows.get(2)).containsEntry("meta", meta);

    Path bad = dir.resolve("bad.jsonl");
    Files.writeString(bad, "{\"id\": 1}\n{\"id\": 1, ]\n");
    try (JsonLinesRowSource source = new JsonLinesRowSource(bad)) {
      assertThatThrownBy(() -> readAll(source)).hasMessageContaining("Invalid JSON on line 2");
    }
  }

  @Test
  void progressReachesOne() throws Exception {
    Path file = dir.resolve("rows.jsonl");
    Files.writeString(file, "{\"id\": 1}\n{\"id\": 2}\n");
    try (JsonLinesRowSource source = new JsonLinesRowSource(file)) {
      readAll(source);
      assertThat(source.progress()).isEqualTo(1.0);
    }
  }

  private static List<Map<String, Object>> readAll(RowSource source) {
    List<Map<String, Object>> rows = new ArrayList<>();
    while (source.hasNext()) {
      rows.add(source.next());
    }
    return rows;
  }
}
