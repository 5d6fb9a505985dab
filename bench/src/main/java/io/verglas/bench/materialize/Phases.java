package io.verglas.bench.materialize;

import io.verglas.bench.ThreadCpu;
import java.util.Optional;

/**
 * Where a writer's measured window went: from the job's start until its input thread first ran
 * (deploying the job, opening state, discovering input), while it ran (the input read or
 * generated and written), and from its last run until the covering commit (the wait for the
 * next checkpoint, the checkpoint and the commit; for a bounded peer also the job's end). Seen
 * through the thread sampling, so to its period.
 *
 * <p>Why: the first and the last part are fixed costs of a job and its checkpoint interval,
 * about the same for every writer; over a short input they are a large share of the window,
 * and the throughput ratios cannot exceed what the middle part allows.
 */
record Phases(double startupS, double inputS, double tailS) {
  /** Thread groups of the writers' input: our WAL source's fetcher, the peers' generator. */
  static final String OURS_INPUT = "Source Data Fetcher";
  static final String PEERS_INPUT = "Source: Sequence Source";

  /**
   * The phases of a window of {@code seconds} whose input ran as {@code input} tells, or null
   * when the sampling never saw it run.
   */
  static Phases of(Optional<ThreadCpu.Activity> input, double seconds) {
    return input.map(active -> new Phases(MaterializeBenchmark.round(active.firstSeconds()),
            MaterializeBenchmark.round(active.lastSeconds() - active.firstSeconds()),
            MaterializeBenchmark.round(Math.max(0, seconds - active.lastSeconds()))))
        .orElse(null);
  }
}
