package io.verglas.arrow;

import org.apache.iceberg.types.Type;

/** A column type that Verglas cannot ingest yet (structs, maps, nested lists, variants, geometry). */
public class UnsupportedTypeException extends UnsupportedOperationException {
  public UnsupportedTypeException(Type type) {
    super("Column type " + type + " is not supported for ingest yet (supported: primitive types and lists of them)");
  }
}
