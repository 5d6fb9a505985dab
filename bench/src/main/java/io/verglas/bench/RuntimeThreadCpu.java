package io.verglas.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time of the threads that the JVM's thread bean does not list: the JVM's own (garbage
 * collectors, JIT compilers) and native libraries' (RocksDB's flushes and compactions), read
 * from Linux's {@code /proc/self/task}. Elsewhere it reports nothing. Why: on a small machine
 * they take a third of a benchmark's CPU, and which of them grew is where a change went wrong.
 */
final class RuntimeThreadCpu {
  private static final Path TASKS = Path.of("/proc/self/task");
  /** Linux reports thread CPU time in clock ticks of 1/100 s (USER_HZ) on every platform. */
  private static final long NANOS_PER_TICK = 10_000_000L;
  /** Thread name prefixes, as Linux shows names (15 characters at most), and their group. */
  private static final List<Map.Entry<String, String>> GROUPS = List.of(
      Map.entry("C2 CompilerThre", "jvm: JIT compilers"),
      Map.entry("C1 CompilerThre", "jvm: JIT compilers"),
      Map.entry("GC Thread", "jvm: garbage collector"),
      Map.entry("G1 ", "jvm: garbage collector"),
      Map.entry("VM Thread", "jvm: VM operations"),
      Map.entry("rocksdb:", "native: RocksDB background"));

  private final Map<String, Long> ticksAtStart;

  private RuntimeThreadCpu(Map<String, Long> ticksAtStart) {
    this.ticksAtStart = ticksAtStart;
  }

  static RuntimeThreadCpu start() {
    return new RuntimeThreadCpu(ticksByThread(new HashMap<>()));
  }

  /** Nanoseconds of CPU per group since {@link #start}. */
  Map<String, Long> nanosByGroup() {
    Map<String, Long> byGroup = new HashMap<>();
    Map<String, String> names = new HashMap<>();
    ticksByThread(names).forEach((tid, ticks) -> {
      long used = ticks - ticksAtStart.getOrDefault(tid, 0L);
      String group = group(names.get(tid));
      if (group != null && used > 0) {
        byGroup.merge(group, used * NANOS_PER_TICK, Long::sum);
      }
    });
    return byGroup;
  }

  static String group(String linuxThreadName) {
    for (Map.Entry<String, String> prefix : GROUPS) {
      if (linuxThreadName.startsWith(prefix.getKey())) {
        return prefix.getValue();
      }
    }
    return null;
  }

  /** CPU ticks (user + system) by thread id; fills {@code names} with the threads' names. */
  private static Map<String, Long> ticksByThread(Map<String, String> names) {
    Map<String, Long> ticks = new HashMap<>();
    if (!Files.isDirectory(TASKS)) {
      return ticks;
    }
    try (Stream<Path> tasks = Files.list(TASKS)) {
      tasks.forEach(task -> {
        try {
          String stat = Files.readString(task.resolve("stat"));
          // "tid (name) state ...": the name may hold spaces and parentheses, the rest does not
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
          String tid = task.getFileName().toString();
          String name = Files.readString(task.resolve("comm")).strip();
          // Both read before either is kept: a thread ending in between leaves neither.
          ticks.put(tid, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
          names.put(tid, name);
        } catch (IOException | RuntimeException e) {
          // the thread ended between listing and reading: it is not counted
        }
      });
    } catch (IOException e) {
      return Map.of();
    }
    return ticks;
  }
}
