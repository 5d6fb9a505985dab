package io.verglas.cli.flink;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.configuration.MemorySize;

/**
 * Settings of a local session cluster: where it keeps its files, its REST port, and what it
 * changes of {@code flink-conf/config.yaml} (memory, slots, checkpoint directory, any other
 * key). A value left unset keeps the file's. Built with {@link #builder(Path)}; each setter
 * validates its value.
 */
public final class FlinkClusterConfig {
  private final Path directory;
  private final int restPort;
  private final Integer taskSlots;
  private final MemorySize jobManagerMemory;
  private final MemorySize taskManagerMemory;
  private final String checkpointDir;
  private final Map<String, String> settings;

  private FlinkClusterConfig(Builder b) {
    this.directory = b.directory;
    this.restPort = b.restPort;
    this.taskSlots = b.taskSlots;
    this.jobManagerMemory = b.jobManagerMemory;
    this.taskManagerMemory = b.taskManagerMemory;
    this.checkpointDir = b.checkpointDir;
    this.settings = Map.copyOf(b.settings);
  }

  /** A cluster whose configuration, logs and working files live in {@code directory}. */
  public static Builder builder(Path directory) {
    return new Builder(directory);
  }

  public Path directory() { return directory; }
  /** The REST port; 0 picks a free one. */
  public int restPort() { return restPort; }

  /** What this config changes of the file's settings, as Flink keys (ports apart). */
  Map<String, String> overrides() {
    Map<String, String> overrides = new LinkedHashMap<>();
    if (taskSlots != null) {
      overrides.put("taskmanager.numberOfTaskSlots", taskSlots.toString());
    }
    if (jobManagerMemory != null) {
      overrides.put("jobmanager.memory.process.size", jobManagerMemory.toString());
    }
    if (taskManagerMemory != null) {
      overrides.put("taskmanager.memory.process.size", taskManagerMemory.toString());
    }
    if (checkpointDir != null) {
      String base = checkpointDir.endsWith("/") ? checkpointDir : checkpointDir + "/";
      overrides.put("execution.checkpointing.dir", base + "checkpoints");
      overrides.put("execution.checkpointing.savepoint-dir", base + "savepoints");
    }
    overrides.putAll(settings);
    return overrides;
  }

  public static final class Builder {
    private final Path directory;
    private int restPort;
    private Integer taskSlots;
    private MemorySize jobManagerMemory;
    private MemorySize taskManagerMemory;
    private String checkpointDir;
    private final Map<String, String> settings = new LinkedHashMap<>();

    private Builder(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
    }

    public Builder restPort(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("Invalid REST port: " + port);
      }
      this.restPort = port;
      return this;
    }

    public Builder taskSlots(int slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("Invalid number of task slots: " + slots);
      }
      this.taskSlots = slots;
      return this;
    }

    /** The JobManager's whole process (heap, metaspace, overhead), e.g. {@code 768m}. */
    public Builder jobManagerMemory(String size) {
      this.jobManagerMemory = memory(size, "JobManager", 512);
      return this;
    }

    /** Each TaskManager's whole process (heap, managed memory for RocksDB, network, ...). */
    public Builder taskManagerMemory(String size) {
      this.taskManagerMemory = memory(size, "TaskManager", 1024);
      return this;
    }

    /**
     * Where checkpoints ({@code DIR/checkpoints}) and savepoints ({@code DIR/savepoints}) go:
     * {@code s3://bucket/path} (through the S3 filesystem plugin) or {@code file:///path}.
     */
    public Builder checkpointDir(String uri) {
      Objects.requireNonNull(uri, "checkpointDir");
      if (!uri.startsWith("s3://") && !uri.startsWith("file:/")) {
        throw new IllegalArgumentException("Invalid checkpoint directory: " + uri
            + " (s3://bucket/path or file:///path)");
      }
      this.checkpointDir = uri;
      return this;
    }

    /** Any other Flink setting, e.g. {@code s3.endpoint}; applied last. */
    public Builder set(String key, String value) {
      settings.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
      return this;
    }

    public FlinkClusterConfig build() {
      return new FlinkClusterConfig(this);
    }

    private static MemorySize memory(String size, String role, int minMebibytes) {
      MemorySize parsed;
      try {
        parsed = MemorySize.parse(size);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid " + role + " memory: " + size, e);
      }
      if (parsed.getMebiBytes() < minMebibytes) {
        throw new IllegalArgumentException("Invalid " + role + " memory: " + size
            + " (at least " + minMebibytes + "m)");
      }
      return parsed;
    }
  }
}
