package io.verglas.table;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A request to create a Verglas table: the body of the Flight {@code create-table} action.
 * An empty primary key makes an append-only table.
 *
 * <p>The namespace and name are not checked here: {@link IdentifierRules#validate} is, by the
 * server before it creates anything and by a client before it sends, so every breach is
 * answered with the rule it breaks.
 */
public record CreateTableRequest(
    List<String> namespace,
    String name,
    Schema schema,
    List<String> primaryKey,
    PartitionSpec partitionSpec,
    Map<String, String> properties) {

  public CreateTableRequest {
    namespace = List.copyOf(namespace);
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(schema, "schema");
    primaryKey = List.copyOf(primaryKey);
    partitionSpec = partitionSpec == null ? PartitionSpec.unpartitioned() : partitionSpec;
    properties = Map.copyOf(properties);
  }

  public TableIdentifier identifier() {
    return TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)), name);
  }
}
