package io.verglas.maintenance.source;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/** Hands the single feed split to the first reader that asks; takes it back on failure. */
final class FeedEnumerator implements SplitEnumerator<FeedSplit, List<FeedSplit>> {
  private final SplitEnumeratorContext<FeedSplit> context;
  private final List<FeedSplit> unassigned;

  FeedEnumerator(SplitEnumeratorContext<FeedSplit> context, List<FeedSplit> unassigned) {
    this.context = context;
    this.unassigned = new ArrayList<>(unassigned);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<FeedSplit> splits, int subtaskId) {
    unassigned.addAll(splits);
    assignTo(subtaskId);
  }

  @Override
  public void addReader(int subtaskId) {
    assignTo(subtaskId);
  }

  private void assignTo(int subtaskId) {
    if (!unassigned.isEmpty() && context.registeredReaders().containsKey(subtaskId)) {
      unassigned.forEach(split -> context.assignSplit(split, subtaskId));
      unassigned.clear();
    }
  }

  @Override
  public List<FeedSplit> snapshotState(long checkpointId) {
    return List.copyOf(unassigned);
  }

  @Override
  public void close() {}
}
