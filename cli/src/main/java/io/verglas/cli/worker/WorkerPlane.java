package io.verglas.cli.worker;

import io.verglas.cli.local.EndpointsFile;
import io.verglas.cli.stack.StackOptions;
import io.verglas.sdk.VerglasClient;
import io.verglas.workers.deploy.DeploymentRevision;
import io.verglas.workers.deploy.DeploymentStore;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.QueueSettings;
import java.time.Clock;
import java.time.Duration;

/**
 * What the worker verbs reach of a running stack, from its endpoints.json: the deployments
 * table (through the stack's client) and, when the stack runs workers, the scheduler's queue.
 * Opened per command, closed when it ends.
 */
final class WorkerPlane implements AutoCloseable {
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(60);
  private final EndpointsFile endpoints;
  private final VerglasClient client;
  private final DeploymentStore store;
  private JobQueue queue;

  WorkerPlane(StackOptions stack) {
    this.endpoints = stack.endpoints();
    this.client = endpoints.workerEndpoints(COMMIT_TIMEOUT).client();
    this.store = new DeploymentStore(client, Clock.systemUTC());
  }

  VerglasClient client() {
    return client;
  }

  DeploymentStore store() {
    return store;
  }

  /** True when the stack runs the scheduler (its endpoints.json names the queue). */
  boolean workersOn() {
    return endpoints.workers() != null;
  }

  /** The scheduler's queue; fails, saying why, when the stack runs no workers. */
  JobQueue queue(String verb) {
    if (queue == null) {
      EndpointsFile.WorkersDatabase workers = endpoints.workers();
      if (workers == null) {
        throw new IllegalStateException("Cannot " + verb + ": the running stack runs no workers "
            + "(its endpoints.json has no workers entry; `verglas local` printed why on its "
            + "Workers line)");
      }
      queue = new JobQueue(Database.of(workers.jdbcUrl(), null, null, workers.schema()),
          QueueSettings.defaults());
    }
    return queue;
  }

  /** The latest revision of {@code name}, which must exist. */
  DeploymentRevision current(String verb, String name) {
    return store.current(name).orElseThrow(() -> new IllegalArgumentException("Cannot " + verb
        + ": no deployment named " + name + " (see `verglas deployments`)"));
  }

  @Override
  public void close() {
    if (queue != null) {
      queue.close();
    }
    client.close();
  }
}
