package io.verglas.workers.systable;

import io.verglas.sdk.QueryFailedException;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.table.CreateTableRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The worker platform's own tables in the {@value #NAMESPACE} namespace (deployment
 * revisions, run logs): ordinary Iceberg tables written through the stack's ingest path, so any
 * engine reads them like the data they describe.
 */
public final class SystemTables {
  public static final String NAMESPACE = "verglas_sys";

  private SystemTables() {}

  /** {@code verglas_sys.<name>}. */
  public static TableIdentifier table(String name) {
    return TableIdentifier.of(NAMESPACE, name);
  }

  /**
   * The current snapshot of a system table, empty while the table has none or does not exist
   * yet (system tables are made by their first write).
   */
  public static Optional<TableSnapshot> snapshot(TableClient table) {
    try {
      return Optional.ofNullable(table.snapshot());
    } catch (QueryFailedException e) {
      if (e.status() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Creates the unpartitioned table {@code table} of {@code schema} unless it exists. */
  public static void ensure(VerglasClient client, TableIdentifier table, Schema schema,
      List<String> primaryKey) {
    try {
      client.createTable(new CreateTableRequest(List.of(NAMESPACE), table.name(), schema,
          primaryKey, PartitionSpec.unpartitioned(), Map.of()));
    } catch (VerglasException e) {
      if (e.code() != FlightStatusCode.ALREADY_EXISTS) {
        throw e;
      }
    }
  }
}
