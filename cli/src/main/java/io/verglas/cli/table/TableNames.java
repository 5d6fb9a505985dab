package io.verglas.cli.table;

import io.verglas.table.IdentifierRules;
import io.verglas.table.TableIdentifiers;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Reads {@code ns[.ns2].table} as typed on the command line, in the {@link TableIdentifiers}
 * form: a level holding a dot is written in backquotes, {@code 'demo.`orders.v2`'} (quoted for
 * the shell too), and {@code demo.orders.v2} is table {@code v2} in namespace {@code demo.orders}.
 */
public final class TableNames {
  private static final String EXPECTED = " (expected NAMESPACE.TABLE, e.g. demo.events; a name "
      + "holding a dot in backquotes, e.g. 'demo.`orders.v2`')";

  private TableNames() {}

  /** The table {@code name} names; it needs a namespace. */
  public static TableIdentifier parse(String name) {
    List<String> levels;
    try {
      levels = TableIdentifiers.parse(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + EXPECTED, e);
    }
    if (levels.size() < 2) {
      throw new IllegalArgumentException("Cannot parse table name '" + name + "': it has no "
          + "namespace" + EXPECTED);
    }
    return TableIdentifiers.identifier(levels);
  }

  /**
   * The table {@code name} names, checked against {@link IdentifierRules} as the server checks a
   * new table's identifier, so a name the server would refuse is refused before anything is sent.
   */
  public static TableIdentifier parseNew(String name) {
    TableIdentifier id = parse(name);
    IdentifierRules.validate(List.of(id.namespace().levels()), id.name());
    return id;
  }
}
