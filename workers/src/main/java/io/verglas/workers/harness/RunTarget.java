package io.verglas.workers.harness;

import java.util.Objects;

/**
 * A deployment to run and where its secrets come from: the harness reads {@code secrets} when
 * the run starts, after logging the start, so a secret that does not resolve fails the run
 * with the reason in its log.
 */
public record RunTarget(Deployment deployment, SecretSource secrets) {
  public RunTarget {
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(secrets, "secrets");
  }

  /** A deployment whose secrets are the values it holds already. */
  public static RunTarget of(Deployment deployment) {
    return new RunTarget(deployment, deployment::secrets);
  }
}
