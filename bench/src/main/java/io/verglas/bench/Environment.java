package io.verglas.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Where a benchmark ran, so a figure can be compared only with figures from a like machine. */
final class Environment {
  private Environment() {}

  static Map<String, Object> describe() {
    Map<String, Object> env = new LinkedHashMap<>();
    env.put("cpus", Runtime.getRuntime().availableProcessors());
    env.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
    env.put("memory_total_mb", memTotalMb());
    env.put("java_version", System.getProperty("java.version"));
    env.put("java_vm", System.getProperty("java.vm.name"));
    env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.put("timestamp", java.time.Instant.now().toString());
    return env;
  }

  private static long memTotalMb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }
}
