package io.verglas.cli.push;

import java.util.Iterator;
import java.util.Map;

/** Rows read from a file as column name → raw value (String, Number, Boolean or typed Java value). */
interface RowSource extends Iterator<Map<String, Object>>, AutoCloseable {
  /** How much of the input has been read, 0.0 to 1.0. */
  double progress();

  @Override
  void close();
}
