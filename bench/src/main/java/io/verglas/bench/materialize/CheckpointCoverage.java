package io.verglas.bench.materialize;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Passes the peers' input through, counting it at each checkpoint: the first checkpoint before
 * whose barriers all {@code total} elements of a run passed covers the run's input
 * ({@link #covering}), so its commit is the one that makes the input visible. Counted per
 * subtask, in the stream (each subtask's count when the checkpoint's barrier passes it), and
 * summed per run in this JVM, where the bench's MiniCluster runs the job.
 *
 * <p>Why not the source's enumerator: a checkpoint triggered after every reader asked for more
 * may still cover nothing new (the barrier of the one before can already have followed the last
 * element), and Iceberg's sink commits an empty checkpoint only after ten of them.
 */
final class CheckpointCoverage implements MapFunction<Long, Long>, CheckpointedFunction {
  private static final long serialVersionUID = 1L;
  /** Per run and checkpoint: the elements that passed before its barriers (subtasks summed). */
  private static final Map<String, Map<Long, Long>> PASSED = new ConcurrentHashMap<>();
  /** Per run: the first checkpoint whose count reached the run's total. */
  private static final Map<String, Long> COVERING = new ConcurrentHashMap<>();

  private final String run;
  private final long total;
  private transient long count;
  private transient ListState<Long> counted;

  /** Counts the {@code total} elements of the run named {@code run}. */
  CheckpointCoverage(String run, long total) {
    this.run = run;
    this.total = total;
  }

  /** The first checkpoint that covers all of {@code run}'s elements, once one is known. */
  static OptionalLong covering(String run) {
    Long checkpoint = COVERING.get(run);
    return checkpoint == null ? OptionalLong.empty() : OptionalLong.of(checkpoint);
  }

  /** Forgets what was counted for {@code run}. */
  static void forget(String run) {
    PASSED.remove(run);
    COVERING.remove(run);
  }

  @Override
  public Long map(Long value) {
    count++;
    return value;
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    counted.update(List.of(count));
    long checkpoint = context.getCheckpointId();
    long passed = PASSED.computeIfAbsent(run, r -> new ConcurrentHashMap<>())
        .merge(checkpoint, count, Long::sum);
    if (passed >= total) {
      COVERING.merge(run, checkpoint, Math::min);
    }
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    counted = context.getOperatorStateStore().getListState(
        new ListStateDescriptor<>("elements-counted", Types.LONG));
    count = 0;
    for (Long restored : counted.get()) {
      count += restored;
    }
  }
}
