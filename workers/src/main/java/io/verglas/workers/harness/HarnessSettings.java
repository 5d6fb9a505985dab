package io.verglas.workers.harness;

import java.io.File;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * How the harness starts run processes and bounds what it keeps of them. Built and validated by
 * {@link #builder()}; every setting has a default.
 *
 * <p>The run process's class path is the deployment's jar followed by
 * {@link Builder#runtimeClasspath}: the workers module and the SDK with their dependencies
 * (by default this JVM's class path, which holds them wherever the harness runs).
 */
public final class HarnessSettings {
  public static final List<String> JVM_OPTIONS_DEFAULT = List.of("-Xmx256m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1", "--add-opens=java.base/java.nio=ALL-UNNAMED");
  public static final int MAX_LOG_EVENTS_DEFAULT = 1_000;
  public static final int MAX_MESSAGE_CHARS_DEFAULT = 4_096;
  public static final int STDERR_TAIL_LINES_DEFAULT = 20;

  private final Path java;
  private final List<String> runtimeClasspath;
  private final List<String> jvmOptions;
  private final int maxLogEvents;
  private final int maxMessageChars;
  private final int stderrTailLines;
  private final Clock clock;

  private HarnessSettings(Builder b) {
    this.java = b.java;
    this.runtimeClasspath = b.runtimeClasspath;
    this.jvmOptions = b.jvmOptions;
    this.maxLogEvents = b.maxLogEvents;
    this.maxMessageChars = b.maxMessageChars;
    this.stderrTailLines = b.stderrTailLines;
    this.clock = b.clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static HarnessSettings defaults() {
    return builder().build();
  }

  public Path java() { return java; }
  public List<String> runtimeClasspath() { return runtimeClasspath; }
  public List<String> jvmOptions() { return jvmOptions; }
  public int maxLogEvents() { return maxLogEvents; }
  public int maxMessageChars() { return maxMessageChars; }
  public int stderrTailLines() { return stderrTailLines; }
  public Clock clock() { return clock; }

  /** Each setter validates its value. */
  public static final class Builder {
    private Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    private List<String> runtimeClasspath =
        List.of(System.getProperty("java.class.path").split(File.pathSeparator));
    private List<String> jvmOptions = JVM_OPTIONS_DEFAULT;
    private int maxLogEvents = MAX_LOG_EVENTS_DEFAULT;
    private int maxMessageChars = MAX_MESSAGE_CHARS_DEFAULT;
    private int stderrTailLines = STDERR_TAIL_LINES_DEFAULT;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** The {@code java} executable; default the current JDK's. */
    public Builder java(Path value) {
      this.java = Objects.requireNonNull(value, "java");
      return this;
    }

    public Builder runtimeClasspath(List<String> value) {
      if (value.isEmpty()) {
        throw new IllegalArgumentException("Invalid runtime class path: empty");
      }
      this.runtimeClasspath = List.copyOf(value);
      return this;
    }

    /** Options of the run's JVM (heap bound among them). */
    public Builder jvmOptions(List<String> value) {
      this.jvmOptions = List.copyOf(value);
      return this;
    }

    /** Log events of the worker's logger kept per run; later ones are counted and dropped. */
    public Builder maxLogEvents(int value) {
      this.maxLogEvents = positive("max log events", value);
      return this;
    }

    /** Characters of one event's message kept. */
    public Builder maxMessageChars(int value) {
      this.maxMessageChars = positive("max message chars", value);
      return this;
    }

    /** Lines of the run's standard error kept to explain a process that died. */
    public Builder stderrTailLines(int value) {
      this.stderrTailLines = positive("stderr tail lines", value);
      return this;
    }

    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    public HarnessSettings build() {
      return new HarnessSettings(this);
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value);
      }
      return value;
    }
  }
}
