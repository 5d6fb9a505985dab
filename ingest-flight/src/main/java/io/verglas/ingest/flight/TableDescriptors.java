package io.verglas.ingest.flight;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/** Tables are addressed by path descriptors {@code [namespace levels..., table]}. */
final class TableDescriptors {
  private TableDescriptors() {}

  static TableIdentifier identifier(FlightDescriptor descriptor) {
    if (descriptor == null || descriptor.isCommand()) {
      throw new IllegalArgumentException("Cannot resolve table: expected a path descriptor "
          + "[namespace..., table] but got " + (descriptor == null ? "none" : "a command"));
    }
    List<String> path = descriptor.getPath();
    if (path.size() < 2) {
      throw new IllegalArgumentException("Cannot resolve table: path " + path
          + " needs a namespace and a table name, e.g. [\"demo\", \"events\"]");
    }
    for (String level : path) {
      if (level == null || level.isBlank()) {
        throw new IllegalArgumentException("Cannot resolve table: path " + path
            + " has a blank element");
      }
    }
    return TableIdentifier.of(Namespace.of(path.subList(0, path.size() - 1).toArray(String[]::new)),
        path.get(path.size() - 1));
  }

  static FlightDescriptor descriptor(TableIdentifier table) {
    List<String> path = new ArrayList<>(List.of(table.namespace().levels()));
    path.add(table.name());
    return FlightDescriptor.path(path);
  }
}
