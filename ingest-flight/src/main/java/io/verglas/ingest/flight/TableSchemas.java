package io.verglas.ingest.flight;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.verglas.arrow.ArrowSchemas;
import io.verglas.ingest.table.IngestTable;
import io.verglas.protocol.IngestProtocol;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow schema a writer of a table should send (GetSchema / GetFlightInfo): the canonical
 * Arrow type of every column, then the optional {@code _op} column; the metadata names the
 * primary key, the Iceberg schema id and the table uuid.
 */
final class TableSchemas {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private TableSchemas() {}

  static Schema arrowSchema(IngestTable table) {
    List<Field> fields = new ArrayList<>(ArrowSchemas.toArrow(table.schema()).getFields());
    fields.add(Field.nullable(IngestProtocol.OP_COLUMN, ArrowType.Utf8.INSTANCE));
    Map<String, String> metadata = new LinkedHashMap<>();
    ArrayNode key = MAPPER.createArrayNode();
    table.primaryKey().forEach(key::add);
    metadata.put(IngestProtocol.SCHEMA_PRIMARY_KEY, key.toString());
    metadata.put(IngestProtocol.SCHEMA_ID, Integer.toString(table.schemaId()));
    metadata.put(IngestProtocol.SCHEMA_TABLE_UUID, table.uuid());
    return new Schema(fields, metadata);
  }
}
