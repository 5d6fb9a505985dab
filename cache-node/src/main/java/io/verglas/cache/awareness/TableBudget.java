package io.verglas.cache.awareness;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The metadata bytes one walk of one table has taken so far (metadata file, manifest list,
 * manifests, footers), against the table's budget. Charged from the walking thread and from
 * footer reads completing on others.
 */
final class TableBudget {
  private final String table;
  private final long limit;
  private final AtomicLong used = new AtomicLong();

  TableBudget(String table, long limit) {
    this.table = table;
    this.limit = limit;
  }

  /** Throws if {@code bytes} more would exceed the budget; otherwise takes them. */
  void reserve(long bytes, String location) {
    long after = used.addAndGet(bytes);
    if (after > limit) {
      throw new OverBudgetException(table, location, after, limit);
    }
  }

  /** Takes bytes already read (a footer's length is known after reading it). */
  void charge(long bytes) {
    used.addAndGet(bytes);
  }

  boolean exceeded() {
    return used.get() > limit;
  }

  long used() {
    return used.get();
  }

  OverBudgetException exceededError() {
    return new OverBudgetException(table, "footers", used.get(), limit);
  }

  /** A table's metadata does not fit its budget. */
  static final class OverBudgetException extends RuntimeException {
    OverBudgetException(String table, String location, long bytes, long limit) {
      super("Cannot warm table " + table + ": its metadata needs more than its budget of " + limit
          + " bytes (" + bytes + " bytes with " + location + ")", null, false, false);
    }
  }
}
