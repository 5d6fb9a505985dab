package io.verglas.cli.flink;

import io.verglas.cli.foreground.Foreground;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code verglas flink-cluster}: a session cluster in the foreground until Ctrl-C or SIGTERM. */
@Command(name = "flink-cluster", mixinStandardHelpOptions = true,
    description = "Run a Flink session cluster on this machine (a JobManager and TaskManagers, "
        + "each a process of its own, on 127.0.0.1) with flink-conf/config.yaml, and print its "
        + "REST URL for `verglas submit` and `verglas local --flink-cluster`.")
public final class FlinkClusterCommand implements Callable<Integer> {
  @Option(names = "--dir", description = "Its configuration, logs and working files (default: .verglas-flink)")
  Path dir = Path.of(".verglas-flink");

  @Option(names = "--rest-port", description = "REST port (default: 8081; 0 picks a free one)")
  int restPort = 8081;

  @Option(names = "--task-managers", description = "TaskManager processes (default: 1)")
  int taskManagers = 1;

  @Option(names = "--slots", description = "Slots per TaskManager (default: flink-conf's)")
  Integer slots;

  @Option(names = "--taskmanager-memory", description = "Each TaskManager's process size, e.g. 2g (default: flink-conf's)")
  String taskManagerMemory;

  @Option(names = "--jobmanager-memory", description = "The JobManager's process size (default: 1g)")
  String jobManagerMemory = "1g";

  @Option(names = "--checkpoint-dir", description = "Checkpoints and savepoints: s3://BUCKET/PATH "
      + "(with --set s3.endpoint=..., s3.access-key, s3.secret-key) or file:///PATH "
      + "(default: file://DIR/state)")
  String checkpointDir;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Any other Flink setting")
  Map<String, String> settings = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    FlinkClusterConfig.Builder config = FlinkClusterConfig.builder(dir).restPort(restPort)
        .jobManagerMemory(jobManagerMemory)
        .checkpointDir(checkpointDir != null ? checkpointDir
            : dir.toAbsolutePath().normalize().resolve("state").toUri().toString());
    if (slots != null) { config.taskSlots(slots); }
    if (taskManagerMemory != null) { config.taskManagerMemory(taskManagerMemory); }
    settings.forEach(config::set);
    System.out.println("Starting a Flink session cluster in " + dir.toAbsolutePath().normalize() + " ...");
    FlinkSessionCluster cluster = FlinkSessionCluster.start(config.build());
    Foreground foreground = Foreground.stopOnExit("Stopping the Flink cluster ...", cluster);
    for (int i = 1; i < taskManagers; i++) {
      cluster.startTaskManager();
    }
    System.out.println("Flink is up.");
    System.out.println("  REST API and web UI  " + cluster.restUrl());
    System.out.println("  TaskManagers         " + taskManagers);
    System.out.println("  Logs                 " + cluster.logDir());
    System.out.println("  Submit with          ./verglas submit materializer --cluster "
        + cluster.restUrl() + " -- ARGS");
    System.out.println("Press Ctrl-C to stop.");
    foreground.await();
    return 0;
  }
}
