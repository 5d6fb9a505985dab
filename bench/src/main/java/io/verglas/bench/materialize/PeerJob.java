package io.verglas.bench.materialize;

import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * A peer's job: the upserts from an {@link EndlessSequence}, so that the job runs on as ours
 * does, measured from its start until the commit of the first checkpoint that covers them all
 * ({@link CheckpointCoverage}), then cancelled.
 */
final class PeerJob {
  /** The commit timestamp of a peer's first commit of checkpoint {@code id} or a later one. */
  @FunctionalInterface
  interface Commits {
    OptionalLong firstCommitMillis(long checkpointId) throws Exception;
  }

  private final StreamExecutionEnvironment env;
  private final String run = UUID.randomUUID().toString();
  private final DataStream<RowData> rows;

  private PeerJob(StreamExecutionEnvironment env, long upserts, long keys) {
    this.env = env;
    this.rows = env.fromSource(new EndlessSequence(upserts), WatermarkStrategy.noWatermarks(),
            "Sequence Source")
        .map(new CheckpointCoverage(run, upserts))
        .map(new FlinkRows(keys))
        .returns(InternalTypeInfo.of(FlinkRows.ROW_TYPE));
  }

  /** A job on {@code env} whose input are {@code upserts} over {@code keys} keys. */
  static PeerJob of(StreamExecutionEnvironment env, long upserts, long keys) {
    return new PeerJob(env, upserts, keys);
  }

  /** The upserts as rows, for the peer's sink. */
  DataStream<RowData> rows() {
    return rows;
  }

  /**
   * Runs the job until {@code commits} shows the covering checkpoint committed, then cancels
   * it; the window ends at that commit's timestamp.
   *
   * @throws IllegalStateException if the job ends by itself or no commit covers the input
   *     within {@link OursRun#COMMIT_TIMEOUT}
   */
  MeasuredWindow.Figures measure(String jobName, Commits commits) throws Exception {
    MeasuredWindow window = MeasuredWindow.open();
    JobClient job = env.executeAsync(jobName);
    try {
      long deadline = System.nanoTime() + OursRun.COMMIT_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        OptionalLong checkpoint = CheckpointCoverage.covering(run);
        OptionalLong committed = checkpoint.isPresent()
            ? commits.firstCommitMillis(checkpoint.getAsLong()) : OptionalLong.empty();
        if (committed.isPresent()) {
          return window.close((committed.getAsLong() - window.startMillis()) / 1000.0,
              Phases.PEERS_INPUT);
        }
        JobStatus status = job.getJobStatus().get();
        if (status.isGloballyTerminalState()) {
          job.getJobExecutionResult().get(); // throws the job's failure, if it failed
          throw new IllegalStateException(jobName + " ended (" + status + ") before a commit"
              + " covered its input");
        }
        Thread.sleep(OursRun.POLL_INTERVAL.toMillis());
      }
      throw new IllegalStateException("Timed out after " + OursRun.COMMIT_TIMEOUT
          + " waiting for " + jobName + " to commit its input");
    } finally {
      window.close();
      CheckpointCoverage.forget(run);
      cancel(job);
    }
  }

  /** Cancels the job unless it has ended by itself (a failure the caller reports). */
  private static void cancel(JobClient job) throws InterruptedException {
    try {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get();
      }
    } catch (ExecutionException e) {
      // It ended between the two calls, or is gone with its cluster: nothing left to cancel.
    }
  }
}
