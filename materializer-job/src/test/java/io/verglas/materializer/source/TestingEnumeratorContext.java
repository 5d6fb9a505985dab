package io.verglas.materializer.source;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/** A single-threaded enumerator context: async calls run when the test says so. */
final class TestingEnumeratorContext implements SplitEnumeratorContext<WalSplit> {
  private final int parallelism;
  private final Map<Integer, ReaderInfo> readers = new HashMap<>();
  private final Map<Integer, List<WalSplit>> assigned = new HashMap<>();
  private final List<Runnable> periodic = new ArrayList<>();

  TestingEnumeratorContext(int parallelism) {
    this.parallelism = parallelism;
  }

  void register(int subtask) {
    readers.put(subtask, new ReaderInfo(subtask, "localhost"));
  }

  /** Runs every periodic async call once, with its handler, on the calling thread. */
  void runPeriodic() {
    periodic.forEach(Runnable::run);
  }

  List<WalSplit> assigned(int subtask) {
    return assigned.getOrDefault(subtask, List.of());
  }

  @Override
  public SplitEnumeratorMetricGroup metricGroup() {
    return null;
  }

  @Override
  public void sendEventToSourceReader(int subtaskId, SourceEvent event) {}

  @Override
  public int currentParallelism() {
    return parallelism;
  }

  @Override
  public Map<Integer, ReaderInfo> registeredReaders() {
    return readers;
  }

  @Override
  public void assignSplits(SplitsAssignment<WalSplit> newSplitAssignments) {
    newSplitAssignments.assignment().forEach((subtask, splits) ->
        assigned.computeIfAbsent(subtask, s -> new ArrayList<>()).addAll(splits));
  }

  @Override
  public void signalNoMoreSplits(int subtask) {}

  @Override
  public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
    run(callable, handler);
  }

  @Override
  public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler,
      long initialDelay, long period) {
    periodic.add(() -> run(callable, handler));
  }

  private static <T> void run(Callable<T> callable, BiConsumer<T, Throwable> handler) {
    try {
      handler.accept(callable.call(), null);
    } catch (Exception e) {
      handler.accept(null, e);
    }
  }

  @Override
  public void runInCoordinatorThread(Runnable runnable) {
    runnable.run();
  }
}
