package io.verglas.arrow;

import java.util.function.IntUnaryOperator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.BaseListVector;
import org.apache.arrow.vector.complex.LargeListVector;

/**
 * The cells of a List, LargeList or FixedSizeList vector as ranges of its element vector: cell
 * {@code row} holds the elements from {@link #start} (inclusive) to {@link #end} (exclusive).
 * Why one view: Arrow's LargeList answers long positions and is no {@code BaseListVector}.
 */
public final class ListCells {
  private final FieldVector elements;
  private final IntUnaryOperator start;
  private final IntUnaryOperator end;

  private ListCells(FieldVector elements, IntUnaryOperator start, IntUnaryOperator end) {
    this.elements = elements;
    this.start = start;
    this.end = end;
  }

  /** The cells of {@code vector}, which must be a List, LargeList or FixedSizeList vector. */
  public static ListCells of(FieldVector vector) {
    FieldVector elements = vector.getChildrenFromFields().get(0);
    if (vector instanceof LargeListVector large) {
      return new ListCells(elements, row -> Math.toIntExact(large.getElementStartIndex(row)),
          row -> Math.toIntExact(large.getElementEndIndex(row)));
    }
    BaseListVector list = (BaseListVector) vector;
    return new ListCells(elements, list::getElementStartIndex, list::getElementEndIndex);
  }

  /** The vector of every cell's elements. */
  public FieldVector elements() {
    return elements;
  }

  public int start(int row) {
    return start.applyAsInt(row);
  }

  public int end(int row) {
    return end.applyAsInt(row);
  }
}
