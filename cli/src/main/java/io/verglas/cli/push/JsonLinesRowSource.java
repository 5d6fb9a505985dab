package io.verglas.cli.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One JSON object per line; blank lines are skipped. Arrays are lists (for list columns),
 * objects as values are maps of field name to value (for struct columns).
 */
final class JsonLinesRowSource extends LookaheadRowSource {
  // exact decimals: 1.10 must reach a decimal(p,2) column as 1.10, not as the double 1.1
  private static final ObjectMapper MAPPER = com.fasterxml.jackson.databind.json.JsonMapper.builder()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .disable(com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
      .build();
  private long line;

  JsonLinesRowSource(Path file) throws IOException {
    super(new TextFile(file));
  }

  @Override
  Map<String, Object> readRow() {
    try {
      String text;
      do {
        text = reader().readLine();
        line++;
        if (text == null) {
          return null;
        }
      } while (text.isBlank());
      JsonNode node;
      try {
        node = MAPPER.readTree(text);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalArgumentException("Invalid JSON on line " + line + ": " + e.getOriginalMessage());
      }
      if (!node.isObject()) {
        throw new IllegalArgumentException("Invalid JSON on line " + line + ": expected an object");
      }
      Map<String, Object> row = new LinkedHashMap<>();
      node.fields().forEachRemaining(e -> row.put(e.getKey(), value(e.getValue())));
      return row;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Object value(JsonNode value) {
    if (value.isNull()) {
      return null;
    } else if (value.isBoolean()) {
      return value.booleanValue();
    } else if (value.isIntegralNumber()) {
      return value.bigIntegerValue();
    } else if (value.isNumber()) {
      return value.decimalValue();
    } else if (value.isTextual()) {
      return value.textValue();
    } else if (value.isArray()) {
      List<Object> list = new ArrayList<>(value.size());
      value.forEach(element -> list.add(value(element)));
      return list;
    } else if (value.isObject()) {
      Map<String, Object> fields = new LinkedHashMap<>();
      value.fields().forEachRemaining(e -> fields.put(e.getKey(), value(e.getValue())));
      return fields;
    }
    throw new IllegalArgumentException("Invalid JSON on line " + line + ": unexpected "
        + value.getNodeType() + " value");
  }
}
