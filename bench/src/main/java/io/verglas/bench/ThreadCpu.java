package io.verglas.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
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
  /**
   * A thread counts as busy in a sampling period ({@link #activity}) when it used at least
   * 1/{@value} of it: a thread that waits for work still wakes now and then (a task thread
   * handling checkpoint barriers), and that is not work; a thread that feeds a busier one (our
   * WAL fetcher: a quarter to a third of a core while the input lasts) is.
   */
  static final int BUSY_SHARE = 10;

  private final Map<Long, Long> startCpuNanos = new HashMap<>();
  private final RuntimeThreadCpu runtime = RuntimeThreadCpu.start();
  /** By thread id: its name and CPU nanos when last sampled. */
  private final Map<Long, Sample> lastSampled = new ConcurrentHashMap<>();
  /** By thread group: the first and last sampling times (nanos since start) it used CPU. */
  private final Map<String, Activity> activity = new ConcurrentHashMap<>();
  private final long startedAt = System.nanoTime();
  private ScheduledExecutorService sampler;
  /** The CPU a thread must have used since the previous sample to count as busy in it. */
  private long busyNanos;

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
    cpu.busyNanos = every.toNanos() / BUSY_SHARE;
    cpu.sampler.scheduleAtFixedRate(cpu::sample, every.toNanos(), every.toNanos(),
        TimeUnit.NANOSECONDS);
    return cpu;
  }

  private void sample() {
    long at = System.nanoTime() - startedAt;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null) {
        long now = threads.getThreadCpuTime(info.getThreadId());
        if (now > 0) {
          Sample previous = lastSampled.put(info.getThreadId(),
              new Sample(info.getThreadName(), now));
          long before = previous != null ? previous.nanos()
              : startCpuNanos.getOrDefault(info.getThreadId(), 0L);
          if (now - before >= busyNanos) {
            activity.merge(group(info.getThreadName()), new Activity(at, at), Activity::span);
          }
        }
      }
    }
  }

  /**
   * When the threads of the groups whose names start with {@code groupPrefix} were busy (see
   * {@link #BUSY_SHARE}), as the sampling saw it (so to its
   * period): the first and the last sample that found one of them busy; empty when none was
   * seen busy or nothing samples.
   */
  public Optional<Activity> activity(String groupPrefix) {
    return activity.entrySet().stream()
        .filter(e -> e.getKey().startsWith(groupPrefix))
        .map(Map.Entry::getValue)
        .reduce(Activity::span);
  }

  /** The sampling times, in nanos since start, between which a thread group was seen busy. */
  public record Activity(long firstNanos, long lastNanos) {
    Activity span(Activity other) {
      return new Activity(Math.min(firstNanos, other.firstNanos),
          Math.max(lastNanos, other.lastNanos));
    }

    public double firstSeconds() {
      return firstNanos / 1e9;
    }

    public double lastSeconds() {
      return lastNanos / 1e9;
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
        cpu.startCpuNanos.put(id, Math.max(0, cpu.threads.getThreadCpuTime(id)));
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
        long used = sample.nanos() - startCpuNanos.getOrDefault(id, 0L);
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
