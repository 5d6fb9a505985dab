package io.verglas.cli.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process of a session cluster: a JVM of its own running one of Flink's entry points with
 * {@code --configDir}, as Flink's {@code jobmanager.sh} and {@code taskmanager.sh} start it: the
 * JVM options of {@code env.java.opts.*}, the memory flags and dynamic settings Flink derives
 * from the memory configuration (what those scripts get from {@code BashJavaUtils}), its log in
 * {@code log/ROLE.log} and its console in {@code log/ROLE.out}.
 *
 * <p>{@link #close()} sends SIGTERM and waits for Flink's shutdown (then SIGKILL);
 * {@link #kill()} is SIGKILL at once, a crash as the cluster sees it.
 */
final class FlinkProcess implements AutoCloseable {
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final Logger LOG = LoggerFactory.getLogger(FlinkProcess.class);

  private final String role;
  private final Process process;
  private final Path log;

  private FlinkProcess(String role, Process process, Path log) {
    this.role = role;
    this.process = process;
    this.log = log;
  }

  /** The launch of one process: its role's name (log file), entry point and memory. */
  record Launch(String role, String mainClass, ConfigOption<String> javaOptions,
      String memoryFlags, String dynamicSettings) {}

  static FlinkProcess start(Launch launch, Configuration conf, ClusterFiles files,
      List<Path> classpath, Path pluginsDir) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(words(conf.get(CoreOptions.FLINK_DEFAULT_JVM_OPTIONS)));
    command.addAll(words(conf.get(CoreOptions.FLINK_JVM_OPTIONS)));
    command.addAll(words(conf.get(launch.javaOptions())));
    command.addAll(words(launch.memoryFlags()));
    Path log = files.logDir().resolve(launch.role() + ".log");
    command.add("-Dlog.file=" + log);
    command.add("-Dlogback.configurationFile=" + files.confDir().resolve("logback.xml"));
    command.add("-cp");
    command.add(FlinkClasspath.join(classpath));
    command.add(launch.mainClass());
    command.add("--configDir");
    command.add(files.confDir().toString());
    command.addAll(words(launch.dynamicSettings()));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(
            files.logDir().resolve(launch.role() + ".out").toFile()));
    if (pluginsDir != null && Files.isDirectory(pluginsDir)) {
      builder.environment().put("FLINK_PLUGINS_DIR", pluginsDir.toString());
    }
    try {
      Process process = builder.start();
      LOG.info("Started the Flink {} (pid {}), log {}", launch.role(), process.pid(), log);
      return new FlinkProcess(launch.role(), process, log);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the Flink " + launch.role() + ": "
          + e.getMessage(), e);
    }
  }

  String role() { return role; }
  Path log() { return log; }
  long pid() { return process.pid(); }
  boolean isAlive() { return process.isAlive(); }

  /** SIGKILL, then waits until the process is gone. */
  void kill() {
    process.destroyForcibly();
    waitFor(STOP_TIMEOUT);
  }

  /** SIGTERM (Flink's orderly shutdown), SIGKILL when it takes longer than the timeout. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (!waitFor(STOP_TIMEOUT)) {
      LOG.warn("The Flink {} (pid {}) did not stop within {}: killing it", role, process.pid(),
          STOP_TIMEOUT);
      kill();
    }
  }

  private boolean waitFor(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static List<String> words(String text) {
    return text == null || text.isBlank() ? List.of()
        : Arrays.asList(text.trim().split("\\s+"));
  }
}
