package io.verglas.arrow;

import org.apache.iceberg.types.Type;

/** A column type that Verglas cannot ingest yet (maps, deeper nesting, variants, geometry). */
public class UnsupportedTypeException extends UnsupportedOperationException {
  public UnsupportedTypeException(Type type) {
    super("Column type " + type + " is not supported for ingest yet (supported: primitive types, and lists and structs of them)");
  }
}
