package io.verglas.bench;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** Memory figures of this process: peak resident set (VmHWM), heap in use, direct buffers. */
public final class ProcessMemory {
  private ProcessMemory() {}

  /** The three figures at one moment, in MiB. */
  public record Usage(long peakRssMb, long heapUsedMb, long directMemoryMb) {
    public static Usage now() {
      return new Usage(ProcessMemory.peakRssMb(), ProcessMemory.heapUsedMb(),
          ProcessMemory.directMemoryMb());
    }
  }

  /** Peak resident set size in MiB since the process started, from /proc (Linux); -1 elsewhere. */
  public static long peakRssMb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  public static long heapUsedMb() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
  }

  public static long directMemoryMb() {
    long bytes = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      bytes += pool.getMemoryUsed();
    }
    return bytes >> 20;
  }
}
