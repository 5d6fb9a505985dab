package io.verglas.cli.worker;

import io.verglas.sdk.VerglasClient;
import io.verglas.sdk.VerglasException;
import io.verglas.workers.deploy.DeploymentRecord;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The granted tables of a deployment that the stack's catalog does not hold, as warnings for
 * {@code deploy}: a table may be created after the deployment, so a missing one does not refuse
 * it, but every run that touches it fails (and is retried) until it exists.
 */
final class MissingTables {
  private MissingTables() {}

  /** One warning per granted table (read or write) the catalog does not have, in grant order. */
  static List<String> warnings(VerglasClient client, DeploymentRecord record) {
    Set<String> tables = new LinkedHashSet<>(record.reads());
    tables.addAll(record.writes());
    List<String> warnings = new ArrayList<>();
    for (String table : tables) {
      if (!exists(client, TableIdentifier.parse(table))) {
        warnings.add("Warning: deployment " + record.name() + " is granted " + grants(record,
            table) + " on table " + table + ", which does not exist yet: its runs fail (and are"
            + " retried) until it is created (`verglas table create " + table + " ...`)");
      }
    }
    return warnings;
  }

  private static boolean exists(VerglasClient client, TableIdentifier table) {
    try {
      client.tableSchema(table);
      return true;
    } catch (VerglasException e) {
      if (e.code() == FlightStatusCode.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  private static String grants(DeploymentRecord record, String table) {
    boolean read = record.reads().contains(table);
    boolean write = record.writes().contains(table);
    return read && write ? "read and write" : read ? "read" : "write";
  }
}
