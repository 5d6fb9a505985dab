package io.verglas.ingest.table;

import io.verglas.ingest.wal.SegmentTarget;
import io.verglas.table.PrimaryKeys;
import io.verglas.table.VerglasTableProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * What ingest needs to know about a table, captured from one load of its metadata: its
 * identity, current schema (and id) and primary key (the schema's identifier fields).
 */
public record IngestTable(
    TableIdentifier identifier, String uuid, String location, int formatVersion, Schema schema,
    List<String> primaryKey, boolean managed) {

  public IngestTable {
    Objects.requireNonNull(identifier, "identifier");
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(schema, "schema");
    primaryKey = List.copyOf(primaryKey);
  }

  /** The ingest view of {@code table}: its uuid, schema and primary key. */
  public static IngestTable of(TableIdentifier identifier, Table table) {
    Schema schema = table.schema();
    List<String> key = new ArrayList<>();
    for (int id : PrimaryKeys.fieldIds(schema)) {
      key.add(schema.findColumnName(id));
    }
    boolean managed = "true".equalsIgnoreCase(
        table.properties().get(VerglasTableProperties.MANAGED));
    int formatVersion = table instanceof org.apache.iceberg.HasTableOperations ops
        ? ops.operations().current().formatVersion() : -1;
    return new IngestTable(identifier, table.uuid().toString(), table.location(), formatVersion,
        schema, key, managed);
  }

  public int schemaId() {
    return schema.schemaId();
  }

  public boolean isPrimaryKey(Types.NestedField field) {
    return schema.identifierFieldIds().contains(field.fieldId());
  }

  public Set<Integer> primaryKeyIds() {
    return schema.identifierFieldIds();
  }

  /** Namespace levels then the table name, as WAL segment headers record it. */
  public List<String> nameLevels() {
    List<String> levels = new ArrayList<>(List.of(identifier.namespace().levels()));
    levels.add(identifier.name());
    return levels;
  }

  public SegmentTarget segmentTarget() {
    return new SegmentTarget(uuid, nameLevels(), schemaId());
  }
}
