package io.verglas.maintenance.plan;

import io.verglas.maintenance.policy.MaintenancePolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides which data files of a snapshot to rewrite. Pure: the same files and policy give the
 * same plan, with no I/O, so every rule is unit-tested on plain values.
 *
 * <p>Design: per partition, a file is selected when
 * <ul>
 *   <li>it is larger than the maximum size (split), or
 *   <li>its deletes remove at least the delete-ratio threshold of its rows, or the partition
 *       holds at least the delete-file-count threshold of delete files (then every file with
 *       deletes is selected: the deletes are applied and the delete files dropped), or
 *   <li>it is small and the partition has at least the small-file-count threshold of small
 *       files; once anything in a partition is rewritten its small files join too, since they
 *       merge for almost nothing.
 * </ul>
 * Thresholds make deltas accumulate, so that one rewrite absorbs many commits. Selected files
 * are packed, largest first, into groups of at most {@code max-group-bytes} input (one commit
 * each, so a conflict costs at most one group). A group that would reproduce its input (one
 * small file with no deletes) is dropped. Output files per group: live bytes / target, rounded
 * up, so every output lies at or below the target and a split file lands within bounds.
 */
public final class CompactionPlanner {
  private final MaintenancePolicy policy;

  public CompactionPlanner(MaintenancePolicy policy) {
    this.policy = policy;
  }

  public CompactionPlan plan(long snapshotId, List<FileState> files) {
    Map<String, List<FileState>> partitions = new LinkedHashMap<>();
    for (FileState file : files) {
      partitions.computeIfAbsent(file.partition(), p -> new ArrayList<>()).add(file);
    }
    List<RewriteGroup> groups = new ArrayList<>();
    partitions.forEach((partition, inPartition) -> groups.addAll(planPartition(partition, inPartition)));
    return new CompactionPlan(snapshotId, groups);
  }

  private List<RewriteGroup> planPartition(String partition, List<FileState> files) {
    Map<FileState, Set<RewriteReason>> selected = new LinkedHashMap<>();
    int deleteFiles = files.stream().mapToInt(FileState::deleteFiles).sum();
    boolean deltaPressure = deleteFiles >= policy.deleteFileCountThreshold();
    for (FileState file : files) {
      if (file.sizeBytes() > policy.maxFileSizeBytes()) {
        select(selected, file, RewriteReason.SPLIT_LARGE);
      }
      if (file.hasDeletes()
          && (deltaPressure || file.deleteRatio() >= policy.deleteRatioThreshold())) {
        select(selected, file, RewriteReason.APPLY_DELETES);
      }
    }
    List<FileState> small = files.stream().filter(this::isSmall).toList();
    if (small.size() >= policy.smallFileCountThreshold() || !selected.isEmpty()) {
      small.forEach(file -> select(selected, file, RewriteReason.MERGE_SMALL));
    }
    return pack(partition, selected);
  }

  private boolean isSmall(FileState file) {
    return file.sizeBytes() < policy.minFileSizeBytes();
  }

  private static void select(Map<FileState, Set<RewriteReason>> selected, FileState file,
      RewriteReason reason) {
    selected.computeIfAbsent(file, f -> EnumSet.noneOf(RewriteReason.class)).add(reason);
  }

  private List<RewriteGroup> pack(String partition, Map<FileState, Set<RewriteReason>> selected) {
    List<FileState> order = new ArrayList<>(selected.keySet());
    order.sort(Comparator.comparingLong(FileState::sizeBytes).reversed()
        .thenComparing(FileState::path));
    List<RewriteGroup> groups = new ArrayList<>();
    List<FileState> current = new ArrayList<>();
    long bytes = 0;
    for (FileState file : order) {
      if (!current.isEmpty() && bytes + file.sizeBytes() > policy.maxGroupBytes()) {
        addIfUseful(groups, partition, current, selected);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(file);
      bytes += file.sizeBytes();
    }
    if (!current.isEmpty()) {
      addIfUseful(groups, partition, current, selected);
    }
    return groups;
  }

  private void addIfUseful(List<RewriteGroup> groups, String partition, List<FileState> files,
      Map<FileState, Set<RewriteReason>> selected) {
    Set<RewriteReason> reasons = EnumSet.noneOf(RewriteReason.class);
    files.forEach(file -> reasons.addAll(selected.get(file)));
    if (reasons.equals(EnumSet.of(RewriteReason.MERGE_SMALL)) && files.size() < 2) {
      return; // one small file alone would be rewritten into itself
    }
    long liveBytes = files.stream().mapToLong(FileState::liveBytes).sum();
    int outputs = (int) Math.max(1, ceilDiv(liveBytes, policy.targetFileSizeBytes()));
    groups.add(new RewriteGroup(partition, files, reasons, outputs));
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
