package io.verglas.query.lookup;

import org.apache.parquet.internal.column.columnindex.OffsetIndex;

/**
 * Rows of a row group posing as the pages of an offset index, one row a page: parquet-mr builds
 * row ranges only from pages ({@code RowRanges.create}), and exact ranges make it read, of every
 * column, only the pages holding those rows and skip to them within the page.
 */
final class RowsAsPages implements OffsetIndex {
  private final long[] rows;

  /** @param rows row indexes within the row group, ascending */
  RowsAsPages(long[] rows) {
    this.rows = rows;
  }

  @Override
  public int getPageCount() {
    return rows.length;
  }

  @Override
  public long getOffset(int pageIndex) {
    return 0;
  }

  @Override
  public int getCompressedPageSize(int pageIndex) {
    return 0;
  }

  @Override
  public long getFirstRowIndex(int pageIndex) {
    return rows[pageIndex];
  }

  @Override
  public long getLastRowIndex(int pageIndex, long rowGroupRowCount) {
    return rows[pageIndex];
  }
}
