package io.verglas.maintenance.plan;

import java.util.List;

/** The rewrites one snapshot of a table needs; empty when its layout is within policy. */
public record CompactionPlan(long snapshotId, List<RewriteGroup> groups) {
  public CompactionPlan {
    groups = List.copyOf(groups);
  }

  public boolean isEmpty() {
    return groups.isEmpty();
  }

  public int inputFiles() {
    return groups.stream().mapToInt(group -> group.files().size()).sum();
  }

  public long inputBytes() {
    return groups.stream().mapToLong(RewriteGroup::inputBytes).sum();
  }
}
