package io.verglas.ingest.flight;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.arrow.UnsupportedTypeException;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import io.verglas.protocol.AlterTableRequest;
import io.verglas.protocol.AlterTableRequestParser;
import io.verglas.protocol.IngestProtocol;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The {@code alter-table} action: adds optional columns to a Verglas table (body =
 * {@link AlterTableRequestParser} JSON; result as for create-table).
 *
 * <p>Only additions of nullable primitive columns are offered: they are the changes that keep
 * every row already in the WAL and every writer still sending the old columns valid. All
 * checks run before the schema update is committed, so a bad request changes nothing.
 */
final class AlterTableAction {
  private final Catalog catalog;
  private final TableCache tables;

  AlterTableAction(Catalog catalog, TableCache tables) {
    this.catalog = catalog;
    this.tables = tables;
  }

  byte[] run(byte[] body) {
    AlterTableRequest request = AlterTableRequestParser.fromJson(
        new String(body, StandardCharsets.UTF_8));
    TableIdentifier id = request.identifier();
    IngestTable current = tables.reload(id);
    if (!current.managed()) {
      throw new IllegalArgumentException("Cannot alter table " + id + ": it is not managed by "
          + "Verglas");
    }
    Set<String> names = new HashSet<>();
    for (AlterTableRequest.NewColumn column : request.addColumns()) {
      String name = column.name();
      if (name.equals(IngestProtocol.OP_COLUMN)) {
        throw new IllegalArgumentException("Cannot alter table " + id + ": column name '" + name
            + "' is reserved");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("Cannot alter table " + id + ": column '" + name
            + "' is added twice");
      }
      if (current.schema().caseInsensitiveFindField(name) != null) {
        throw new IllegalArgumentException("Cannot alter table " + id + ": column '" + name
            + "' already exists");
      }
      try {
        ArrowSchemas.toArrow(column.type());
      } catch (UnsupportedTypeException e) {
        throw new IllegalArgumentException("Cannot alter table " + id + ": " + e.getMessage(), e);
      }
    }
    Table table = catalog.loadTable(id);
    UpdateSchema update = table.updateSchema();
    for (AlterTableRequest.NewColumn column : request.addColumns()) {
      update.addColumn(column.name(), column.type(), column.doc());
    }
    update.commit();
    return TableJson.toBytes(tables.reload(id));
  }
}
