package io.verglas.cli.flink;

import io.verglas.net.LoopbackPorts;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

/**
 * A Flink session cluster on this machine: a JobManager and TaskManagers, each a process of its
 * own started from Flink's entry points ({@code StandaloneSessionClusterEntrypoint},
 * {@code TaskManagerRunner}) with the configuration {@link ClusterFiles} writes, on 127.0.0.1.
 *
 * <p>Readiness is Flink's own word: {@link #start} returns once the REST API answers and
 * {@code /taskmanagers} lists the first TaskManager (registered with the resource manager, its
 * slots offered). A process that dies while being waited for fails the start with the end of
 * its log. {@link #killTaskManager()} and {@link #startTaskManager()} are a crash and a
 * replacement, for recovery tests. {@link #close()} stops the TaskManagers, then the
 * JobManager; jobs still running are not cancelled first (their retained checkpoints stay).
 */
public final class FlinkSessionCluster implements AutoCloseable {
  static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final String JOB_MANAGER_MAIN =
      "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  private static final String TASK_MANAGER_MAIN =
      "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";

  private final ClusterFiles files;
  private final Configuration conf;
  private final List<Path> classpath;
  private final URI restUrl;
  private final FlinkRestClient rest;
  private final Deque<FlinkProcess> taskManagers = new ArrayDeque<>();
  private FlinkProcess jobManager;
  private int started;

  private FlinkSessionCluster(ClusterFiles files, Configuration conf, URI restUrl) {
    this.files = files;
    this.conf = conf;
    this.classpath = FlinkClasspath.ofThisJvm();
    this.restUrl = restUrl;
    this.rest = new FlinkRestClient(restUrl);
  }

  /** Starts the JobManager and one TaskManager and waits until the TaskManager is registered. */
  public static FlinkSessionCluster start(FlinkClusterConfig config) {
    int restPort = config.restPort() == 0 ? LoopbackPorts.free("Flink") : config.restPort();
    ClusterFiles files = new ClusterFiles(config.directory());
    Configuration conf = files.write(config, restPort, LoopbackPorts.free("Flink"));
    URI restUrl = URI.create("http://" + ClusterFiles.HOST + ":" + restPort);
    FlinkSessionCluster cluster = new FlinkSessionCluster(files, conf, restUrl);
    try {
      // Both JVMs start at once (a TaskManager retries its registration until the resource
      // manager is up): their start-ups overlap instead of adding up.
      cluster.startJobManager();
      FlinkProcess taskManager = cluster.launchTaskManager();
      ClusterWait.await("the JobManager's REST API at " + restUrl, cluster.jobManager,
          cluster.rest::answers);
      ClusterWait.await("the " + taskManager.role() + " to register", taskManager,
          () -> !cluster.rest.taskManagerIds().isEmpty());
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The REST API's URL, e.g. {@code http://127.0.0.1:8081}: what {@code verglas submit} takes. */
  public URI restUrl() {
    return restUrl;
  }

  public Path logDir() {
    return files.logDir();
  }

  /** Starts one more TaskManager and waits until the JobManager lists it. */
  public synchronized void startTaskManager() {
    Set<String> before = rest.taskManagerIds();
    FlinkProcess process = launchTaskManager();
    ClusterWait.await("the " + process.role() + " to register",
        process, () -> rest.taskManagerIds().stream().anyMatch(id -> !before.contains(id)));
  }

  private FlinkProcess launchTaskManager() {
    TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(conf);
    FlinkProcess process = FlinkProcess.start(new FlinkProcess.Launch(
        "taskmanager-" + (++started), TASK_MANAGER_MAIN, CoreOptions.FLINK_TM_JVM_OPTIONS,
        ProcessMemoryUtils.generateJvmParametersStr(spec),
        TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)), conf, files, classpath,
        LauncherFiles.pluginsDir());
    taskManagers.push(process);
    return process;
  }

  /** SIGKILLs the newest TaskManager (a crash: no deregistration, no cleanup). */
  public synchronized void killTaskManager() {
    FlinkProcess process = taskManagers.poll();
    if (process == null) {
      throw new IllegalStateException("Cannot kill a TaskManager: none runs");
    }
    process.kill();
  }

  private void startJobManager() {
    JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(conf);
    jobManager = FlinkProcess.start(new FlinkProcess.Launch("jobmanager", JOB_MANAGER_MAIN,
        CoreOptions.FLINK_JM_JVM_OPTIONS, JobManagerProcessUtils.generateJvmParametersStr(spec, conf),
        JobManagerProcessUtils.generateDynamicConfigsStr(spec)), conf, files, classpath,
        LauncherFiles.pluginsDir());
  }

  /** Stops the TaskManagers, then the JobManager (SIGTERM, then SIGKILL); safe to call twice. */
  @Override
  public synchronized void close() {
    while (!taskManagers.isEmpty()) {
      taskManagers.pop().close();
    }
    if (jobManager != null) {
      jobManager.close();
      jobManager = null;
    }
  }


}
