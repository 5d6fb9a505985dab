package io.verglas.ingest.validation;

import java.util.ArrayList;
import java.util.List;

/**
 * The problems found in a stream or batch, in the order found (row by row): the first
 * {@value #MAX_LISTED} are kept to be listed, the rest only counted.
 */
public final class ValidationReport {
  static final int MAX_LISTED = 10;
  private final List<Problem> listed = new ArrayList<>();
  private int count;

  void add(Problem problem) {
    count++;
    if (listed.size() < MAX_LISTED) {
      listed.add(problem);
    }
  }

  public boolean isEmpty() {
    return count == 0;
  }

  public int count() {
    return count;
  }

  public List<Problem> listed() {
    return List.copyOf(listed);
  }

  /** E.g. "2 problems: row 0, column 'id': null in primary key column; row 3, ...; and 5 more". */
  public String describe() {
    StringBuilder text = new StringBuilder();
    text.append(count).append(count == 1 ? " problem: " : " problems: ");
    for (int i = 0; i < listed.size(); i++) {
      if (i > 0) {
        text.append("; ");
      }
      text.append(listed.get(i));
    }
    if (count > listed.size()) {
      text.append("; and ").append(count - listed.size()).append(" more");
    }
    return text.toString();
  }
}
