package io.verglas.ingest.flight;

import io.verglas.catalog.CatalogWalk;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import io.verglas.protocol.ListCriteria;
import java.util.List;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ListFlights: one FlightInfo per table of a namespace and the namespaces nested in it, a page
 * at a time ({@link ListCriteria}: at most 1 000 tables unless the criteria ask for fewer or up
 * to 10 000, continuing after a given table, in {@link io.verglas.catalog.CatalogOrder}).
 *
 * <p>Each listed table's schema is loaded (through the table cache), which is what bounds a
 * page. Tables whose columns cannot be ingested are listed with an empty schema.
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
    ListCriteria page = ListCriteria.parse(criteria);
    CatalogWalk.page(catalog, page.namespace(), page.after(), page.limit(),
        id -> info(id).ifPresent(listener::onNext));
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
