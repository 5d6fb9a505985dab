package io.verglas.bench.scale;

import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's tables: {@code scale.t0000000} … in one namespace, the first
 * {@code active} of them pushed to, the rest idle. Names are made from the index and read back
 * from any string (a query parameter, an object key's path segment), so the counters of the
 * run hold no per-table state of their own, which would count in the heap it measures.
 */
record ScaleTables(int count, int active) {
  static final String NAMESPACE = "scale";
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "payload", Types.StringType.get()));
  static final List<String> PRIMARY_KEY = List.of("id");
  static final PartitionSpec SPEC = PartitionSpec.unpartitioned();
  private static final int DIGITS = 7;

  ScaleTables {
    if (count < 1 || count >= 10_000_000 || active < 1 || active > count) {
      throw new IllegalArgumentException("Invalid tables: " + count + " with " + active + " active");
    }
  }

  /** Who a string names: no table of the benchmark, an active one or an idle one. */
  enum Kind { NONE, ACTIVE, IDLE }

  static String name(int index) {
    return "t" + String.format("%0" + DIGITS + "d", index);
  }

  static TableIdentifier identifier(int index) {
    return TableIdentifier.of(NAMESPACE, name(index));
  }

  int idle() {
    return count - active;
  }

  /** {@code text} is exactly a table's name: whether that table is active or idle. */
  Kind classify(String text) {
    int index = index(text);
    if (index < 0 || index >= count) {
      return Kind.NONE;
    }
    return index < active ? Kind.ACTIVE : Kind.IDLE;
  }

  /** The first table named by a path segment of {@code key} (an object key or prefix). */
  Kind classifyPath(String key) {
    int start = 0;
    while (start <= key.length()) {
      int end = key.indexOf('/', start);
      if (end < 0) {
        end = key.length();
      }
      if (end - start == DIGITS + 1) {
        Kind kind = classify(key.substring(start, end));
        if (kind != Kind.NONE) {
          return kind;
        }
      }
      start = end + 1;
    }
    return Kind.NONE;
  }

  private static int index(String text) {
    if (text == null || text.length() != DIGITS + 1 || text.charAt(0) != 't') {
      return -1;
    }
    int value = 0;
    for (int i = 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
