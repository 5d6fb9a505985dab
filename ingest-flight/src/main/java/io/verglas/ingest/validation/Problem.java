package io.verglas.ingest.validation;

/**
 * One reason a batch is rejected: at a row and column, at a column (row -1), or about the batch
 * as a whole (row -1, column null).
 */
public record Problem(int row, String column, String description, RejectReason reason) {
  public static Problem atRow(int row, String column, String description, RejectReason reason) {
    return new Problem(row, column, description, reason);
  }

  public static Problem atColumn(String column, String description, RejectReason reason) {
    return new Problem(-1, column, description, reason);
  }

  public static Problem ofBatch(String description, RejectReason reason) {
    return new Problem(-1, null, description, reason);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    if (row >= 0) {
      text.append("row ").append(row).append(", ");
    }
    if (column != null) {
      text.append("column '").append(column).append("': ");
    }
    return text.append(description).toString();
  }
}
