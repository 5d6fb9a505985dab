package io.verglas.workers.harness;

import io.cloudevents.CloudEvent;
import java.util.Objects;

/**
 * One run: the deployment, the trigger (its identity, which keys the run's commits, and its
 * event), the run's id (unique per attempt, which keys the run's log events), the attempt
 * number and where the run reaches the stack.
 */
public record RunSpec(Deployment deployment, String identity, CloudEvent event, String runId,
    int attempt, WorkerEndpoints endpoints) {
  public RunSpec {
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(endpoints, "endpoints");
  }

  /** This run with {@code values} as its deployment's secrets. */
  RunSpec withSecrets(java.util.Map<String, String> values) {
    return new RunSpec(deployment.withSecrets(values), identity, event, runId, attempt, endpoints);
  }

  /** This run reaching the stack through {@code value}. */
  RunSpec withEndpoints(WorkerEndpoints value) {
    return new RunSpec(deployment, identity, event, runId, attempt, value);
  }

  /** The key of this run's {@code ordinal}-th commit: the same in every run of the trigger. */
  public String commitKey(int ordinal) {
    return CommitKeys.commit(deployment.name(), identity, ordinal);
  }
}
