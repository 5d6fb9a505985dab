package io.verglas.cli.push;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RFC 4180 CSV with a header row: quoted fields may hold commas, quotes ("") and line breaks.
 * An empty unquoted field is null; a quoted empty field is the empty string.
 */
final class CsvRowSource extends LookaheadRowSource {
  private final List<String> header;
  private long line = 1;

  CsvRowSource(Path file) throws IOException {
    super(new TextFile(file));
    this.header = readRecord();
    if (header == null) {
      close();
      throw new IllegalArgumentException("Cannot read " + file + ": empty CSV (a header row is required)");
    }
  }

  @Override
  Map<String, Object> readRow() {
    long firstLine = line;
    List<String> record = readRecord();
    if (record == null) {
      return null;
    }
    if (record.size() != header.size()) {
      throw new IllegalArgumentException("Invalid CSV in the record on line " + firstLine + ": "
          + record.size() + " fields but the header has " + header.size());
    }
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < header.size(); i++) {
      row.put(header.get(i), record.get(i));
    }
    return row;
  }

  private List<String> readRecord() {
    java.io.BufferedReader reader = reader();
    try {
      int c = reader.read();
      if (c < 0) {
        return null;
      }
      List<String> fields = new ArrayList<>();
      StringBuilder field = new StringBuilder();
      boolean quoted = false;
      boolean wasQuoted = false;
      while (true) {
        if (c < 0) {
          if (quoted) {
            throw new IllegalArgumentException("Invalid CSV: unterminated quote near line " + line);
          }
          fields.add(value(field, wasQuoted));
          return fields;
        }
        if (quoted) {
          if (c == '"') {
            reader.mark(1);
            int peek = reader.read();
            if (peek == '"') {
              field.append('"');
            } else {
              quoted = false;
              reader.reset();
            }
          } else {
            if (c == '\n') {
              line++;
            }
            field.append((char) c);
          }
        } else if (c == '"') {
          quoted = true;
          wasQuoted = true;
        } else if (c == ',') {
          fields.add(value(field, wasQuoted));
          field.setLength(0);
          wasQuoted = false;
        } else if (c == '\n' || c == '\r') {
          if (c == '\r') {
            reader.mark(1);
            if (reader.read() != '\n') {
              reader.reset();
            }
          }
          line++;
          fields.add(value(field, wasQuoted));
          return fields;
        } else {
          field.append((char) c);
        }
        c = reader.read();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String value(StringBuilder field, boolean quoted) {
    return field.length() == 0 && !quoted ? null : field.toString();
  }
}
