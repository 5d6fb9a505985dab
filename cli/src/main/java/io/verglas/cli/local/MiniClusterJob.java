package io.verglas.cli.local;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.dispatcher.SessionDispatcherFactory;
import org.apache.flink.runtime.dispatcher.runner.DefaultDispatcherRunnerFactory;
import org.apache.flink.runtime.entrypoint.component.DefaultDispatcherResourceManagerComponentFactory;
import org.apache.flink.runtime.entrypoint.component.DispatcherResourceManagerComponentFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.resourcemanager.StandaloneResourceManagerFactory;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streaming job on a Flink MiniCluster of its own, which {@link #close()} stops completely.
 *
 * <p>Design. A local environment ({@code createLocalEnvironment}) starts the MiniCluster when
 * the job is submitted and, once the job ends, closes it in the background: nothing can wait
 * for that, so a stack that deletes Flink's directories after cancelling its jobs would race
 * the cluster's own shutdown (and a JVM that exits then leaves the cluster's files behind).
 * This class submits through the same executor the local environment uses
 * ({@link LocalExecutor}), handing it a factory that keeps the MiniCluster it creates, so that
 * {@link #close()} can cancel the job and then wait until the cluster has stopped: its tasks
 * (the RocksDB instances with them), its servers and its RPC system. The cluster is Flink's
 * MiniCluster with a REST endpoint that serves nothing ({@link EmptyRestEndpointFactory}).
 *
 * <p>Class loading. The job is built in this process and submitted without jars, so the
 * user-code class loader Flink gives its tasks (and its enumerators) loads nothing of its own:
 * every class comes from the application class loader, and with it Iceberg's and the AWS SDK's
 * JVM-wide thread pools ({@code S3FileIO}'s delete pool, Iceberg's worker pool), which the rest
 * of the process (the ingest server dropping a table with purge, the other job) shares. A pool
 * thread that a task's call starts inherits that task's loader as its context class loader and
 * keeps it. Flink wraps the loader in a safety net that throws "Trying to access closed
 * classloader" once the job or attempt that owned it has ended (a finished job, a restart), and
 * the AWS SDK looks up its XML parser through the context loader, so every later S3 call on that
 * thread failed (a purge left its files behind). Flink has no setting that gives a TaskManager's
 * tasks the application loader itself, so the safety net is off for these clusters
 * ({@code classloader.check-leaked-classloader: false}): an empty loader that a pool thread keeps
 * then goes on delegating to the application loader, exactly as if it were that loader, and
 * costs a few objects per pool thread. On a real cluster the check stays on: a job jar's loader
 * defines its own Iceberg, so its pools are that job's alone (docs/operations.md).
 *
 * <p>Failures. Each step of {@link #close()} waits at most {@link #STOP_TIMEOUT}; a step that
 * fails or times out is logged and the next one still runs (a job that already failed cannot
 * be cancelled, but its cluster still has to stop).
 */
final class MiniClusterJob implements AutoCloseable {
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
  private static final Logger LOG = LoggerFactory.getLogger(MiniClusterJob.class);

  private final String name;
  private final AtomicReference<MiniCluster> cluster = new AtomicReference<>();
  private JobClient client;
  private boolean closed;

  private MiniClusterJob(String name) {
    this.name = name;
  }

  /**
   * Builds the job with {@code topology} on an environment of {@code configuration} and
   * {@code parallelism}, and submits it to a new MiniCluster of that configuration.
   */
  static MiniClusterJob start(String name, Configuration configuration, int parallelism,
      Consumer<StreamExecutionEnvironment> topology) {
    MiniClusterJob job = new MiniClusterJob(name);
    Configuration conf = new Configuration(configuration);
    conf.set(DeploymentOptions.TARGET, LocalExecutor.NAME);
    conf.set(DeploymentOptions.ATTACHED, true);
    conf.set(CoreOptions.CHECK_LEAKED_CLASSLOADER, false);
    StreamExecutionEnvironment env = new StreamExecutionEnvironment(job.executors(), conf,
        MiniClusterJob.class.getClassLoader());
    env.setParallelism(parallelism);
    topology.accept(env);
    try {
      job.client = env.executeAsync(name);
      return job;
    } catch (Exception e) {
      job.close();
      throw new IllegalStateException("Cannot start the " + name + " job: " + e.getMessage(), e);
    }
  }

  JobClient client() {
    return client;
  }

  /** Cancels the job and waits until its MiniCluster has stopped; safe to call twice. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (client != null) {
      await("cancel the " + name + " job", () -> client.cancel().get(
          STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    }
    MiniCluster running = cluster.get();
    if (running != null) {
      await("stop the " + name + " MiniCluster", () -> running.closeAsync().get(
          STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    }
  }

  private void await(String what, Step step) {
    try {
      step.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Interrupted while waiting to {}", what);
    } catch (Exception e) {
      LOG.warn("Cannot {}: {}", what, e.toString());
    }
  }

  /** The executor of a local environment, with a factory that remembers its MiniCluster. */
  private PipelineExecutorServiceLoader executors() {
    PipelineExecutorFactory factory = new PipelineExecutorFactory() {
      @Override
      public String getName() {
        return LocalExecutor.NAME;
      }

      @Override
      public boolean isCompatibleWith(Configuration configuration) {
        return true;
      }

      @Override
      public PipelineExecutor getExecutor(Configuration configuration) {
        return LocalExecutor.createWithFactory(configuration, MiniClusterJob.this::newCluster);
      }
    };
    return new PipelineExecutorServiceLoader() {
      @Override
      public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
        return factory;
      }

      @Override
      public Stream<String> getExecutorNames() {
        return Stream.of(factory.getName());
      }
    };
  }

  /** Flink's MiniCluster with a REST endpoint that serves nothing, kept for {@link #close()}. */
  private MiniCluster newCluster(MiniClusterConfiguration configuration) {
    MiniCluster created = new MiniCluster(configuration) {
      @Override
      protected DispatcherResourceManagerComponentFactory
          createDispatcherResourceManagerComponentFactory() {
        // Flink's session components (as MiniCluster's own), but for the REST endpoint
        return new DefaultDispatcherResourceManagerComponentFactory(
            DefaultDispatcherRunnerFactory.createSessionRunner(SessionDispatcherFactory.INSTANCE),
            StandaloneResourceManagerFactory.getInstance(), EmptyRestEndpointFactory.INSTANCE);
      }
    };
    cluster.set(created);
    return created;
  }

  @FunctionalInterface
  private interface Step {
    void run() throws Exception;
  }
}
