package io.verglas.cli.table;

import io.verglas.cli.stack.StackOptions;
import io.verglas.maintenance.status.MaintenanceStatus;
import io.verglas.maintenance.status.MaintenanceStatusParser;
import io.verglas.table.PrimaryKeys;
import io.verglas.table.VerglasTableProperties;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code verglas table describe NS.TABLE}: schema, key, layout, the current snapshot and the
 * maintenance status.
 */
@Command(name = "describe", mixinStandardHelpOptions = true,
    description = "Show a table's schema, primary key, partitioning, current snapshot, file counts"
        + " and maintenance status (last maintenance, pending work).")
public final class DescribeTableCommand implements Callable<Integer> {
  private static final List<String> TOTALS = List.of("total-records", "total-data-files",
      "total-delete-files", "total-position-deletes", "total-files-size");

  @Mixin StackOptions stack;

  @Parameters(index = "0", paramLabel = "NS.TABLE")
  String table;

  @Override
  public Integer call() {
    Catalog catalog = stack.catalog();
    Table t = catalog.loadTable(TableNames.parse(table));
    System.out.println("Table      " + t.name());
    System.out.println("Location   " + t.location());
    System.out.println("UUID       " + t.uuid());
    System.out.println("Format     v" + t.properties().getOrDefault("format-version",
        String.valueOf(((org.apache.iceberg.HasTableOperations) t).operations().current().formatVersion())));
    List<Integer> key = PrimaryKeys.fieldIds(t.schema());
    System.out.println("Key        " + (key.isEmpty() ? "(none: append-only)"
        : key.stream().map(id -> t.schema().findColumnName(id)).toList()));
    System.out.println("Partition  " + (t.spec().isUnpartitioned() ? "(unpartitioned)" : t.spec().fields()));
    System.out.println("Schema");
    t.schema().columns().forEach(c -> System.out.println("  " + c));
    Snapshot current = t.currentSnapshot();
    if (current == null) {
      System.out.println("Snapshot   (none yet)");
      return 0;
    }
    printSnapshot(current);
    System.out.print(MaintenanceStatusParser.toText(MaintenanceStatus.of(t)));
    return 0;
  }

  private static void printSnapshot(Snapshot current) {
    System.out.println("Snapshot   " + current.snapshotId() + " (" + current.operation() + ", sequence "
        + current.sequenceNumber() + ", " + java.time.Instant.ofEpochMilli(current.timestampMillis()) + ")");
    Map<String, String> summary = new TreeMap<>(current.summary());
    for (String total : TOTALS) {
      System.out.println("  " + total + " = " + summary.getOrDefault(total, "0"));
    }
    summary.forEach((k, v) -> {
      if (k.startsWith(VerglasTableProperties.SUMMARY_WAL_PREFIX)) {
        System.out.println("  " + k + " = " + v);
      }
    });
  }
}
