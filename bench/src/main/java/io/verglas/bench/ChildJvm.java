package io.verglas.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class in a child JVM with this JVM's class path and options (heap, {@code -D}
 * settings, agents), its output passed through to ours.
 *
 * <p>Design: a benchmark that compares systems runs each in a process of its own, as each is
 * deployed, so that one's JIT state, heap and threads do not weigh on the next, and each
 * process's memory is its own to report.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * Runs {@code main} with {@code args} and waits for it; {@code jvmOptions} come after this
   * JVM's own, so they take precedence.
   *
   * @throws IllegalStateException if it does not exit within {@code timeout} (it is killed) or
   *     exits with a status other than 0
   */
  public static void run(Class<?> main, List<String> jvmOptions, List<String> args,
      Duration timeout) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    Process process = new ProcessBuilder(command).inheritIO().start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(main.getSimpleName() + " " + args + " did not finish "
            + "within " + timeout + "; killed");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(main.getSimpleName() + " " + args + " exited with status "
            + process.exitValue());
      }
    } finally {
      process.destroyForcibly();
    }
  }
}
