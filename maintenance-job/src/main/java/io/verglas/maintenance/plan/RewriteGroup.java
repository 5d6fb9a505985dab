package io.verglas.maintenance.plan;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Files of one partition rewritten together in one commit, into {@link #outputFiles} files of
 * about equal size.
 */
public record RewriteGroup(String partition, List<FileState> files, Set<RewriteReason> reasons,
    int outputFiles) {

  public RewriteGroup {
    files = List.copyOf(files);
    reasons = Set.copyOf(EnumSet.copyOf(reasons));
    if (files.isEmpty()) {
      throw new IllegalArgumentException("Invalid rewrite group of " + partition + ": no files");
    }
    if (outputFiles < 1) {
      throw new IllegalArgumentException("Invalid rewrite group of " + partition
          + ": output files " + outputFiles + " (must be >= 1)");
    }
  }

  public long inputBytes() {
    return files.stream().mapToLong(FileState::sizeBytes).sum();
  }

  public long liveRecords() {
    return files.stream().mapToLong(FileState::liveRecords).sum();
  }

  public int deleteFiles() {
    return files.stream().mapToInt(FileState::deleteFiles).sum();
  }
}
