package io.verglas.workers.harness;

import io.verglas.workers.schedule.JobHandler;
import io.verglas.workers.schedule.Lease;
import java.util.Optional;
import java.util.function.Function;

/**
 * The scheduler's {@link JobHandler} that runs each dispatched job through the
 * {@link WorkerHarness}: the job's deployment is looked up by name, its identity keys the run's
 * commits and its lease generation names the run ({@code identity#generation}), so every
 * attempt has a log of its own while all attempts share their commits' keys. A failed run fails
 * the attempt (retried with backoff by the queue).
 */
public final class HarnessJobHandler implements JobHandler {
  private final WorkerHarness harness;
  private final Function<String, Optional<Deployment>> deployments;
  private final RunObserver observer;

  /** @param observer sees every run (its process and events) */
  public HarnessJobHandler(WorkerHarness harness,
      Function<String, Optional<Deployment>> deployments, RunObserver observer) {
    this.harness = harness;
    this.deployments = deployments;
    this.observer = observer;
  }

  @Override
  public void handle(Lease lease) throws Exception {
    Deployment deployment = deployments.apply(lease.deployment()).orElseThrow(() ->
        new IllegalStateException("Cannot run job " + lease.identity() + ": deployment "
            + lease.deployment() + " is not known"));
    harness.run(harness.spec(deployment, lease.identity(), lease.event(),
        lease.identity() + "#" + lease.generation(), lease.attempt()), observer);
  }
}
