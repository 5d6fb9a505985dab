package io.verglas.ingest.flight;

import io.verglas.catalog.CatalogWalk;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ListFlights: one FlightInfo per table of every namespace, nested ones included. A non-empty
 * criteria expression names a namespace (levels joined by '.') to list instead of all.
 *
 * <p>Each table's schema is loaded (through the table cache), so listing a huge catalog is
 * slow; use the criteria to narrow it. Tables whose columns cannot be ingested are listed
 * with an empty schema.
 */
final class TableListing {
  private static final Logger LOG = LoggerFactory.getLogger(TableListing.class);
  private final Catalog catalog;
  private final TableCache tables;

  TableListing(Catalog catalog, TableCache tables) {
    this.catalog = catalog;
    this.tables = tables;
  }

  void list(byte[] criteria, StreamListener<FlightInfo> listener) {
    Namespace root = criteria == null || criteria.length == 0 ? Namespace.empty()
        : Namespace.of(new String(criteria, StandardCharsets.UTF_8).split("\\."));
    CatalogWalk.tables(catalog, root, id -> {
      info(id).ifPresent(listener::onNext);
      return true;
    });
    listener.onCompleted();
  }

  private java.util.Optional<FlightInfo> info(TableIdentifier id) {
    Schema schema;
    try {
      IngestTable table = tables.get(id);
      try {
        schema = TableSchemas.arrowSchema(table);
      } catch (UnsupportedOperationException e) {
        schema = new Schema(List.of());
      }
    } catch (NoSuchTableException e) {
      LOG.debug("Table {} vanished while listing", id);
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new FlightInfo(schema, TableDescriptors.descriptor(id),
        List.of(), -1, -1));
  }
}
