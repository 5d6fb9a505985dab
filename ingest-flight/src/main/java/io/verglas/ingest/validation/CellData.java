package io.verglas.ingest.validation;

import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Where the cells of a variable-width vector (strings, binaries, plain or large) lie in its data
 * buffer: from the first cell's start to the last cell's end.
 */
record CellData(long start, long end) {
  static CellData of(FieldVector vector) {
    int rows = vector.getValueCount();
    if (rows == 0) {
      return new CellData(0, 0);
    }
    if (vector instanceof BaseVariableWidthVector v) {
      return new CellData(v.getStartOffset(0), v.getEndOffset(rows - 1));
    }
    BaseLargeVariableWidthVector v = (BaseLargeVariableWidthVector) vector;
    return new CellData(v.getOffsetBuffer().getLong(0),
        v.getOffsetBuffer().getLong((long) rows * BaseLargeVariableWidthVector.OFFSET_WIDTH));
  }

  /** The bytes all cells take together. */
  long bytes() {
    return end - start;
  }
}
