package io.verglas.cli.table;

import io.verglas.cli.stack.StackOptions;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.TableIdentifiers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code verglas table create NS.TABLE --columns ... [--primary-key ...]}. */
@Command(name = "create", mixinStandardHelpOptions = true,
    description = "Create a table (format version 3 unless --format-version 2).")
public final class CreateTableCommand implements Callable<Integer> {
  @Mixin StackOptions stack;

  @Parameters(index = "0", paramLabel = "NS.TABLE", description = "Table to create, e.g. "
      + "demo.events ('demo.`orders.v2`' for a name holding a dot)")
  String table;

  @ArgGroup(multiplicity = "1")
  SchemaSource schema;

  static final class SchemaSource {
    @Option(names = "--columns", description = "Columns, e.g. \"id long, name string, ts timestamptz\"")
    String columns;

    @Option(names = "--schema-file", description = "Iceberg schema JSON (as SchemaParser writes it)")
    Path schemaFile;
  }

  @Option(names = "--primary-key", split = ",", description = "Primary key columns (none: append-only)")
  List<String> primaryKey = List.of();

  @Option(names = "--partition", split = ";", description = "Partition fields, e.g. \"day(ts);bucket(16, id)\"")
  List<String> partition = List.of();

  @Option(names = "--format-version", description = "Iceberg format version: 3 (default, deletion vectors) or 2")
  Integer formatVersion;

  @Option(names = "--property", description = "Table property KEY=VALUE (repeatable)")
  Map<String, String> properties = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    TableIdentifier id = TableNames.parseNew(table);
    Schema parsed = schema.columns != null ? ColumnsParser.parse(schema.columns)
        : SchemaParser.fromJson(Files.readString(schema.schemaFile));
    PartitionSpec spec = PartitionParser.parse(parsed, partition);
    Map<String, String> props = new LinkedHashMap<>(properties);
    if (formatVersion != null) {
      props.put("format-version", formatVersion.toString());
    }
    CreateTableRequest request = new CreateTableRequest(List.of(id.namespace().levels()), id.name(),
        parsed, primaryKey, spec, props);
    try (VerglasClient client = stack.client()) {
      client.createTable(request);
    }
    System.out.println("Created " + TableIdentifiers.toString(id) + (primaryKey.isEmpty()
        ? " (append-only)" : " with primary key " + String.join(", ", primaryKey)));
    return 0;
  }
}
