package io.verglas.workers.harness;

import io.verglas.workers.schedule.JobHandler;
import io.verglas.workers.schedule.Lease;
import io.verglas.workers.schedule.PermanentJobFailure;
import java.util.Optional;
import java.util.function.Function;

/**
 * The scheduler's {@link JobHandler} that runs each dispatched job through the
 * {@link WorkerHarness}: the job's deployment is looked up by name, its identity keys the run's
 * commits and its lease generation names the run ({@code identity#generation}), so every
 * attempt has a log of its own while all attempts share their commits' keys. A failed run fails
 * the attempt (retried with backoff by the queue); a run failed for good
 * ({@link WorkerRunException#permanent()}) and a job whose deployment is unknown or undeployed
 * throw {@link PermanentJobFailure}, so the queue marks the job dead at once.
 */
public final class HarnessJobHandler implements JobHandler {
  private final WorkerHarness harness;
  private final Function<String, Optional<RunTarget>> targets;
  private final RunObserver observer;

  /**
   * A handler running the deployments {@code deployments} finds with the secrets they hold.
   *
   * @param observer sees every run (its process and events)
   */
  public HarnessJobHandler(WorkerHarness harness,
      Function<String, Optional<Deployment>> deployments, RunObserver observer) {
    this(harness, observer, name -> deployments.apply(name).map(RunTarget::of));
  }

  private HarnessJobHandler(WorkerHarness harness, RunObserver observer,
      Function<String, Optional<RunTarget>> targets) {
    this.harness = harness;
    this.targets = targets;
    this.observer = observer;
  }

  /**
   * A handler running the targets {@code targets} finds, each run reading its secrets as it
   * starts ({@link WorkerHarness#run(RunSpec, SecretSource, RunObserver)}).
   */
  public static HarnessJobHandler ofTargets(WorkerHarness harness,
      Function<String, Optional<RunTarget>> targets, RunObserver observer) {
    return new HarnessJobHandler(harness, observer, targets);
  }

  @Override
  public void handle(Lease lease) throws Exception {
    RunTarget target = target(lease);
    try {
      harness.run(harness.spec(target.deployment(), lease.identity(), lease.event(),
          lease.identity() + "#" + lease.generation(), lease.attempt()), target.secrets(),
          observer);
    } catch (WorkerRunException e) {
      if (e.permanent()) {
        throw new PermanentJobFailure(e.getMessage(), e);
      }
      throw e;
    }
  }

  /** The job's target; an undeployed one throws {@link PermanentJobFailure} from the lookup. */
  private RunTarget target(Lease lease) {
    return targets.apply(lease.deployment()).orElseThrow(() -> new PermanentJobFailure(
        "Cannot run job " + lease.identity() + ": deployment " + lease.deployment()
            + " is not known"));
  }
}
