package io.verglas.cli.flink;

import java.util.List;
import java.util.Objects;

/**
 * What {@code POST /jars/:id/run} starts: the jar's entry class with its arguments, at a
 * parallelism (null: the cluster's default) from a savepoint or retained checkpoint (null: none).
 */
public record JobRun(String entryClass, List<String> args, Integer parallelism, String savepointPath) {
  public JobRun {
    Objects.requireNonNull(entryClass, "entryClass");
    args = List.copyOf(args);
    if (parallelism != null && parallelism < 1) {
      throw new IllegalArgumentException("Invalid parallelism: " + parallelism);
    }
  }
}
