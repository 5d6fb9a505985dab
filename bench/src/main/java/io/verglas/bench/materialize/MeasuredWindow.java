package io.verglas.bench.materialize;

import io.verglas.bench.ProcessCpu;
import io.verglas.bench.ThreadCpu;
import java.util.Map;

/**
 * One writer's measured window, opened right before its job starts: the process's CPU and JIT
 * time, each thread group's CPU (sampled, so that the threads of a finished bounded job count)
 * and the {@link Phases} of the window. The same for all three writers.
 */
final class MeasuredWindow implements AutoCloseable {
  /** How many thread groups the figures list, the busiest first. */
  static final int THREAD_GROUPS = 14;

  private final long startMillis = System.currentTimeMillis();
  private final ProcessCpu cpu = ProcessCpu.start();
  private final ThreadCpu threads = ThreadCpu.sampling(MaterializeBenchmark.THREAD_CPU_SAMPLING);

  private MeasuredWindow() {}

  static MeasuredWindow open() {
    return new MeasuredWindow();
  }

  /** Wall-clock milliseconds at the window's start (to compare with commit timestamps). */
  long startMillis() {
    return startMillis;
  }

  /**
   * The figures of a window that lasted {@code seconds}, whose input ran on the thread groups
   * named {@code inputGroup}; stops the sampling.
   */
  Figures close(double seconds, String inputGroup) {
    Figures figures = new Figures(seconds, cpu.cpuSeconds(), cpu.jitSeconds(),
        threads.topGroups(THREAD_GROUPS), Phases.of(threads.activity(inputGroup), seconds));
    close();
    return figures;
  }

  @Override
  public void close() {
    threads.close();
  }

  /** What a window measured. */
  record Figures(double seconds, double cpuSeconds, double jitSeconds,
      Map<String, Double> cpuByThread, Phases phases) {}
}
