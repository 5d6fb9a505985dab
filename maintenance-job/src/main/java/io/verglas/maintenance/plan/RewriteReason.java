package io.verglas.maintenance.plan;

/** Why a data file is rewritten. */
public enum RewriteReason {
  /** Its deletes (DVs, position or equality deletes) are applied into a new base file. */
  APPLY_DELETES,
  /** It is small and merged with the partition's other small files. */
  MERGE_SMALL,
  /** It exceeds the maximum file size and is split. */
  SPLIT_LARGE
}
