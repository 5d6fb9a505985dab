package io.verglas.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time of this process's threads between two points, grouped by thread name with subtask
 * and pool numbers removed ({@code "Delta writer (1/1)#0"} and {@code "Delta writer (2/2)#0"}
 * are one group): where a benchmark's CPU went, which process CPU alone does not say. On Linux
 * the JVM's own threads and native ones join as groups of their own ({@link RuntimeThreadCpu}:
 * garbage collector, JIT compilers, RocksDB). Threads that ended in between are missed; a
 * benchmark's long-lived threads are not.
 */
public final class ThreadCpu {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> startNanos = new HashMap<>();
  private final RuntimeThreadCpu runtime = RuntimeThreadCpu.start();

  private ThreadCpu() {}

  /** Starts counting now. */
  public static ThreadCpu start() {
    ThreadCpu cpu = new ThreadCpu();
    if (cpu.threads.isThreadCpuTimeSupported()) {
      for (long id : cpu.threads.getAllThreadIds()) {
        cpu.startNanos.put(id, Math.max(0, cpu.threads.getThreadCpuTime(id)));
      }
    }
    return cpu;
  }

  /** Seconds of CPU per thread group since {@link #start}, the {@code limit} largest, largest first. */
  public Map<String, Double> topGroups(int limit) {
    Map<String, Long> byGroup = new HashMap<>();
    if (threads.isThreadCpuTimeSupported()) {
      for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (info == null) {
          continue;
        }
        long now = threads.getThreadCpuTime(info.getThreadId());
        long used = now - startNanos.getOrDefault(info.getThreadId(), 0L);
        if (now > 0 && used > 0) {
          byGroup.merge(group(info.getThreadName()), used, Long::sum);
        }
      }
    }
    runtime.nanosByGroup().forEach((group, nanos) -> byGroup.merge(group, nanos, Long::sum));
    Map<String, Double> top = new LinkedHashMap<>();
    byGroup.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
        .limit(limit)
        .forEach(e -> top.put(e.getKey(), Math.round(e.getValue() / 1e7) / 100.0));
    return top;
  }

  static String group(String threadName) {
    return threadName.replaceAll("\\(\\d+/\\d+\\)", "").replaceAll("[#-]?\\d+", "").trim();
  }
}
