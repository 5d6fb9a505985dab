package io.verglas.bench.cache;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time spent by a server, to set beside wall-clock times that the machine's other load
 * blurs: for the cache node, the threads of this JVM whose names start with a prefix (its event
 * loops); for nginx, its master and worker processes, from {@code /proc} (user + system time, in
 * clock ticks of 10 ms: sum it over many requests).
 */
final class ServerCpu {
  private static final double NANOS_PER_TICK = 10_000_000.0;

  private ServerCpu() {}

  /** CPU nanoseconds used so far by the live threads of this JVM named {@code prefix...}. */
  static long threadsNanos(String prefix) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(prefix)) {
        total += Math.max(0, mx.getThreadCpuTime(info.getThreadId()));
      }
    }
    return total;
  }

  /** CPU nanoseconds used so far by process {@code pid} and its direct children; -1 without /proc. */
  static long processTreeNanos(long pid) {
    Path proc = Path.of("/proc");
    if (!Files.isDirectory(proc)) {
      return -1;
    }
    long ticks = 0;
    try (Stream<Path> entries = Files.list(proc)) {
      for (Path p : entries.toList()) {
        long[] stat = stat(p);
        if (stat != null && (stat[0] == pid || stat[1] == pid)) {
          ticks += stat[2];
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return (long) (ticks * NANOS_PER_TICK);
  }

  /** {pid, ppid, utime + stime} of a /proc entry, or null if it is not a process (or is gone). */
  private static long[] stat(Path entry) {
    String name = entry.getFileName().toString();
    if (name.isEmpty() || !name.chars().allMatch(Character::isDigit)) {
      return null;
    }
    try {
      String stat = Files.readString(entry.resolve("stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return new long[] {Long.parseLong(name), Long.parseLong(fields[1]),
          Long.parseLong(fields[11]) + Long.parseLong(fields[12])};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
