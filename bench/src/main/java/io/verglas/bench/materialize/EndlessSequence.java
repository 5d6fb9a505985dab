package io.verglas.bench.materialize;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The peers' input: the numbers {@code [0, count)} as Flink's number sequence source reads
 * them, but in an unbounded job: once every reader has read its share, the source idles instead
 * of ending. So the peers' sinks commit on checkpoints, as a sink on a stream that runs on does,
 * and as ours does. (In a bounded job their sinks commit the moment the input ends, not waiting
 * for the next checkpoint, which the WAL, never ending, does not allow ours: measured, the
 * Iceberg sink's window then ended 0.16 s after its input, ours 1.55 s after.)
 * {@link CheckpointCoverage} tells which checkpoint covers the input.
 */
final class EndlessSequence extends NumberSequenceSource {
  private static final long serialVersionUID = 1L;

  /** The numbers {@code [0, count)}. */
  EndlessSequence(long count) {
    super(0, count - 1);
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> createEnumerator(
      SplitEnumeratorContext<NumberSequenceSplit> context) {
    return super.createEnumerator(new NeverEnding(context));
  }

  @Override
  public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> restoreEnumerator(
      SplitEnumeratorContext<NumberSequenceSplit> context,
      Collection<NumberSequenceSplit> checkpoint) {
    return super.restoreEnumerator(new NeverEnding(context), checkpoint);
  }

  /**
   * The enumerator's context, except that a reader is never told there are no more splits (it
   * would end its input): it waits for more.
   */
  private static final class NeverEnding implements SplitEnumeratorContext<NumberSequenceSplit> {
    private final SplitEnumeratorContext<NumberSequenceSplit> context;

    NeverEnding(SplitEnumeratorContext<NumberSequenceSplit> context) {
      this.context = context;
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
      // not passed on: see the class comment
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
      return context.metricGroup();
    }

    @Override
    public void sendEventToSourceReader(int subtask, SourceEvent event) {
      context.sendEventToSourceReader(subtask, event);
    }

    @Override
    public void sendEventToSourceReader(int subtask, int attempt, SourceEvent event) {
      context.sendEventToSourceReader(subtask, attempt, event);
    }

    @Override
    public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
      return context.registeredReadersOfAttempts();
    }

    @Override
    public void setIsProcessingBacklog(boolean isProcessingBacklog) {
      context.setIsProcessingBacklog(isProcessingBacklog);
    }

    @Override
    public int currentParallelism() {
      return context.currentParallelism();
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
      return context.registeredReaders();
    }

    @Override
    public void assignSplits(SplitsAssignment<NumberSequenceSplit> assignment) {
      context.assignSplits(assignment);
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
      context.callAsync(callable, handler);
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler,
        long initialDelay, long period) {
      context.callAsync(callable, handler, initialDelay, period);
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
      context.runInCoordinatorThread(runnable);
    }
  }
}
