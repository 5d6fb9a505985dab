package io.verglas.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * CPU time of this process and the JIT's compile time since a start, read together: on a small
 * machine the compilers share the CPUs with what is measured, so a benchmark reports both.
 */
public final class ProcessCpu {
  private final long cpuNanosAtStart;
  private final long jitMillisAtStart;

  private ProcessCpu() {
    this.cpuNanosAtStart = cpuNanos();
    this.jitMillisAtStart = jitMillis();
  }

  public static ProcessCpu start() {
    return new ProcessCpu();
  }

  /** CPU seconds of all threads of this process since {@link #start()}. */
  public double cpuSeconds() {
    return (cpuNanos() - cpuNanosAtStart) / 1e9;
  }

  /** Seconds the JIT compilers spent since {@link #start()} (0 if the JVM does not tell). */
  public double jitSeconds() {
    return (jitMillis() - jitMillisAtStart) / 1e3;
  }

  /** CPU time of this process so far (all threads). */
  private static long cpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean hotspot) {
      return hotspot.getProcessCpuTime();
    }
    throw new UnsupportedOperationException("Cannot measure process CPU time on this JVM ("
        + os.getClass().getName() + ")");
  }

  /** Time the JIT compilers spent so far. */
  private static long jitMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime() : 0;
  }
}
