package io.verglas.ingest;

import io.verglas.table.CreateTableRequest;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/** Tables the server tests create. */
final class TestTables {
  static final Schema EVENTS_SCHEMA = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.DoubleType.get()),
      Types.NestedField.optional(4, "at", Types.TimestampType.withZone()));

  static final Schema CLICKS_SCHEMA = new Schema(
      Types.NestedField.optional(1, "user", Types.StringType.get()),
      Types.NestedField.optional(2, "page", Types.StringType.get()),
      Types.NestedField.optional(3, "at", Types.TimestampType.withoutZone()));

  private TestTables() {}

  /** A primary-key table: id (key), name (required), score, at. */
  static CreateTableRequest events(String namespace, String name) {
    return new CreateTableRequest(List.of(namespace), name, EVENTS_SCHEMA, List.of("id"), null,
        Map.of());
  }

  /** An append-only table. */
  static CreateTableRequest clicks(String namespace, String name) {
    return new CreateTableRequest(List.of(namespace), name, CLICKS_SCHEMA, List.of(), null,
        Map.of());
  }

  static TableIdentifier id(String namespace, String name) {
    return TableIdentifier.of(namespace, name);
  }
}
