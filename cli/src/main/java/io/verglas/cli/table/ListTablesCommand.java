package io.verglas.cli.table;

import io.verglas.cli.stack.StackOptions;
import io.verglas.sdk.VerglasClient;
import java.util.concurrent.Callable;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code verglas table list}. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "List the tables.")
public final class ListTablesCommand implements Callable<Integer> {
  @Mixin StackOptions stack;

  @Override
  public Integer call() throws Exception {
    try (VerglasClient client = stack.client()) {
      for (TableIdentifier id : client.listTables()) {
        System.out.println(id);
      }
    }
    return 0;
  }
}
