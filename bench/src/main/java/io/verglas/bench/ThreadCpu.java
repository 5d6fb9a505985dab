package io.verglas.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * CPU time of this process's threads between two points, grouped by thread name with subtask
 * and pool numbers removed ({@code "Delta writer (1/1)#0"} and {@code "Delta writer (2/2)#0"}
 * are one group): where a benchmark's CPU went, which process CPU alone does not say. On Linux
 * the JVM's own threads and native ones join as groups of their own ({@link RuntimeThreadCpu}:
 * garbage collector, JIT compilers, RocksDB). Threads that ended in between are missed unless
 * it {@link #sampling samples}: a job that has finished when its run is measured (a bounded
 * peer's tasks) is then counted up to its last sample.
 */
public final class ThreadCpu implements AutoCloseable {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> startNanos = new HashMap<>();
  private final RuntimeThreadCpu runtime = RuntimeThreadCpu.start();
  /** By thread id: its name and CPU nanos when last sampled. */
  private final Map<Long, Sample> lastSampled = new ConcurrentHashMap<>();
  private ScheduledExecutorService sampler;

  private ThreadCpu() {}

  /**
   * Starts counting now, sampling every thread's CPU {@code every} so that threads ending before
   * {@link #topGroups} count up to their last sample; {@link #close} stops the sampling.
   */
  public static ThreadCpu sampling(Duration every) {
    ThreadCpu cpu = start();
    cpu.sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "thread-cpu-sampler");
      thread.setDaemon(true);
      return thread;
    });
    cpu.sampler.scheduleAtFixedRate(cpu::sample, every.toNanos(), every.toNanos(),
        TimeUnit.NANOSECONDS);
    return cpu;
  }

  private void sample() {
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null) {
        long now = threads.getThreadCpuTime(info.getThreadId());
        if (now > 0) {
          lastSampled.put(info.getThreadId(), new Sample(info.getThreadName(), now));
        }
      }
    }
  }

  @Override
  public void close() {
    if (sampler != null) {
      sampler.shutdownNow();
    }
  }

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
      Map<Long, Sample> seen = new HashMap<>(lastSampled);
      for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (info != null) {
          seen.put(info.getThreadId(),
              new Sample(info.getThreadName(), threads.getThreadCpuTime(info.getThreadId())));
        }
      }
      seen.forEach((id, sample) -> {
        long used = sample.nanos() - startNanos.getOrDefault(id, 0L);
        if (sample.nanos() > 0 && used > 0) {
          byGroup.merge(group(sample.name()), used, Long::sum);
        }
      });
    }
    runtime.nanosByGroup().forEach((group, nanos) -> byGroup.merge(group, nanos, Long::sum));
    Map<String, Double> top = new LinkedHashMap<>();
    byGroup.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
        .limit(limit)
        .forEach(e -> top.put(e.getKey(), Math.round(e.getValue() / 1e7) / 100.0));
    return top;
  }

  private record Sample(String name, long nanos) {}

  static String group(String threadName) {
    return threadName.replaceAll("\\(\\d+/\\d+\\)", "").replaceAll("[#-]?\\d+", "").trim();
  }
}
