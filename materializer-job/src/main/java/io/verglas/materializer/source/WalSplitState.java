package io.verglas.materializer.source;

/** The mutable progress of a split while its reader emits rows. */
final class WalSplitState {
  private final WalSplit split;
  private long rowsEmitted;

  WalSplitState(WalSplit split) {
    this.split = split;
    this.rowsEmitted = split.rowsEmitted();
  }

  void emitted(long ordinal) {
    rowsEmitted = Math.max(rowsEmitted, ordinal + 1);
  }

  WalSplit toSplit() {
    return split.withRowsEmitted(rowsEmitted);
  }
}
