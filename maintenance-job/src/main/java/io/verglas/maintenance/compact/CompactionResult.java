package io.verglas.maintenance.compact;

import java.util.List;

/** The outcomes of the groups of one compaction pass over a table. */
public record CompactionResult(List<GroupOutcome> groups) {
  public CompactionResult {
    groups = List.copyOf(groups);
  }

  public int commits() {
    return (int) groups.stream().filter(GroupOutcome::committed).count();
  }

  public int conflicts() {
    return groups.size() - commits();
  }

  public long bytesRead() {
    return groups.stream().filter(GroupOutcome::committed).mapToLong(GroupOutcome::bytesRead).sum();
  }

  public int filesRewritten() {
    return groups.stream().filter(GroupOutcome::committed)
        .mapToInt(GroupOutcome::filesRewritten).sum();
  }

  public int filesAdded() {
    return groups.stream().filter(GroupOutcome::committed).mapToInt(GroupOutcome::filesAdded).sum();
  }
}
