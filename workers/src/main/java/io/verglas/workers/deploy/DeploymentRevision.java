package io.verglas.workers.deploy;

import java.time.Instant;
import java.util.Objects;

/**
 * One stored revision of a deployment. The latest revision of a name is the deployment's
 * current state; an undeploy is a revision too (state {@link State#UNDEPLOYED}, carrying the
 * record it retired), so the table is only ever appended to.
 */
public record DeploymentRevision(String name, int revision, State state, DeploymentRecord record,
    Instant createdAt) {
  /** Whether the revision's record runs. */
  public enum State { ACTIVE, UNDEPLOYED }

  public DeploymentRevision {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(createdAt, "createdAt");
    if (revision < 1) {
      throw new IllegalArgumentException("Cannot make revision " + revision + " of " + name
          + ": revisions count from 1");
    }
  }

  public boolean active() {
    return state == State.ACTIVE;
  }
}
