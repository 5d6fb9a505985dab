package io.verglas.bench.materialize;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/**
 * The peers' input on a MiniCluster: the job runs on after its input, and the checkpoint
 * {@link CheckpointCoverage} names is the first whose barriers follow every element, as a
 * witness behind a shuffle (where a sink is) counts them.
 */
class PeerInputTest {
  private static final long COUNT = 50_000;

  @Test
  void theJobRunsOnAfterItsInputAndTheCoveringCheckpointIsTheFirstThatHoldsItAll()
      throws Exception {
    String run = UUID.randomUUID().toString();
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.fromSource(new EndlessSequence(COUNT), WatermarkStrategy.noWatermarks(), "numbers")
        .map(new CheckpointCoverage(run, COUNT))
        .rebalance()
        .map(new CountedAtCheckpoints(run))
        .sinkTo(new DiscardingSink<>());
    JobClient job = env.executeAsync("peer-input-test");
    try {
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      OptionalLong covering = OptionalLong.empty();
      while (covering.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(50);
        covering = CheckpointCoverage.covering(run);
      }
      long checkpoint = covering.orElseThrow();
      while (CountedAtCheckpoints.subtasksAt(run, checkpoint) < 2
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(CountedAtCheckpoints.totalAt(run, checkpoint)).isEqualTo(COUNT);
      // The input spans several checkpoints (the witness pauses), and the one before lacks some.
      assertThat(checkpoint).isGreaterThan(1);
      assertThat(CountedAtCheckpoints.subtasksAt(run, checkpoint - 1)).isEqualTo(2);
      assertThat(CountedAtCheckpoints.totalAt(run, checkpoint - 1)).isLessThan(COUNT);
      Thread.sleep(600); // several checkpoints later
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    } finally {
      job.cancel().get();
      CheckpointCoverage.forget(run);
    }
  }

  /** The witness: counts its elements and records each subtask's count at each checkpoint. */
  private static final class CountedAtCheckpoints extends RichMapFunction<Long, Long>
      implements CheckpointedFunction {
    /** run → checkpoint → subtask → count. */
    private static final Map<String, Map<Long, Map<Integer, Long>>> COUNTS =
        new ConcurrentHashMap<>();
    private static final int PAUSE_EVERY = 50;
    private final String run;
    private transient AtomicLong count;
    private transient int subtask;

    CountedAtCheckpoints(String run) {
      this.run = run;
    }

    @Override
    public void open(OpenContext context) {
      subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    @Override
    public Long map(Long value) throws InterruptedException {
      if (count.incrementAndGet() % PAUSE_EVERY == 0) {
        Thread.sleep(1); // the input then spans several checkpoints
      }
      return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      COUNTS.computeIfAbsent(run, r -> new ConcurrentHashMap<>())
          .computeIfAbsent(context.getCheckpointId(), c -> new ConcurrentHashMap<>())
          .put(subtask, count.get());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
      count = new AtomicLong();
    }

    static int subtasksAt(String run, long checkpoint) {
      return COUNTS.getOrDefault(run, Map.of()).getOrDefault(checkpoint, Map.of()).size();
    }

    static long totalAt(String run, long checkpoint) {
      return COUNTS.getOrDefault(run, Map.of()).getOrDefault(checkpoint, Map.of()).values()
          .stream().mapToLong(Long::longValue).sum();
    }
  }
}
