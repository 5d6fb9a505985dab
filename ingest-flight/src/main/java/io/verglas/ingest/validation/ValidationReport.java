package io.verglas.ingest.validation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The problems found in a stream or batch: the first {@value #MAX_LISTED} in row order are
 * listed, the rest only counted.
 *
 * <p>Checks run column by column (a column's cells are scanned in one pass), so problems arrive
 * out of row order. Each check therefore offers at most its first {@value #MAX_LISTED} problems
 * and counts the others with {@link #countMore}; {@link #listed()} sorts what was offered by row,
 * then by the check's position, and keeps the first {@value #MAX_LISTED}. Problems without a row
 * (about a column or the whole batch) come first, in the order found.
 */
public final class ValidationReport {
  static final int MAX_LISTED = 10;
  private static final Comparator<Entry> ORDER = Comparator
      .comparingInt((Entry e) -> e.problem.row())
      .thenComparingInt(e -> e.problem.row() < 0 ? e.sequence : e.position)
      .thenComparingInt(e -> e.sequence);

  private record Entry(Problem problem, int position, int sequence) {}

  private final List<Entry> offered = new ArrayList<>();
  private int count;

  /** Adds a problem without a specific check position (listed in the order found). */
  public void add(Problem problem) {
    add(problem, Integer.MAX_VALUE);
  }

  /** Adds a problem found by the check at {@code position} (orders problems of one row). */
  void add(Problem problem, int position) {
    count++;
    offered.add(new Entry(problem, position, offered.size()));
  }

  /** Counts problems a check found beyond the ones it offered. */
  void countMore(int problems) {
    count += problems;
  }

  public boolean isEmpty() {
    return count == 0;
  }

  public int count() {
    return count;
  }

  public List<Problem> listed() {
    List<Entry> sorted = new ArrayList<>(offered);
    sorted.sort(ORDER);
    List<Problem> problems = new ArrayList<>();
    for (int i = 0; i < sorted.size() && i < MAX_LISTED; i++) {
      problems.add(sorted.get(i).problem);
    }
    return problems;
  }

  /** The reason of the first problem listed. */
  public RejectReason firstReason() {
    List<Problem> listed = listed();
    return listed.isEmpty() ? RejectReason.OTHER : listed.get(0).reason();
  }

  /** E.g. "2 problems: row 0, column 'id': null in primary key column; row 3, ...; and 5 more". */
  public String describe() {
    List<Problem> listed = listed();
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
