package io.verglas.workers.harness;

import io.verglas.table.TableIdentifiers;
import io.verglas.workers.api.DataGrants;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the harness needs of a deployment to run it: its code (a jar, or null when the worker
 * class is already on the runtime class path, and the {@link io.verglas.workers.api.Worker}
 * class), configuration, secrets, data grants, named output tables and the run timeout.
 * (Deployments as stored, revisioned records are not built yet; this is their run-time part.)
 *
 * @param outputs output name to table ({@code ns.t}); each must be granted for writes
 */
public record Deployment(String name, Path jar, String workerClass, Map<String, String> config,
    Map<String, String> secrets, DataGrants grants, Map<String, String> outputs,
    Duration timeout) {
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  public Deployment {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("Invalid deployment name: '" + name
          + "' (lower-case letters, digits, '_' and '-', at most 63, starting with a letter or digit)");
    }
    Objects.requireNonNull(workerClass, "workerClass");
    config = Map.copyOf(config);
    secrets = Map.copyOf(secrets);
    Objects.requireNonNull(grants, "grants");
    outputs = Map.copyOf(outputs);
    for (Map.Entry<String, String> output : outputs.entrySet()) {
      if (!grants.writes().contains(TableIdentifiers.identifier(output.getValue()))) {
        throw new IllegalArgumentException("Cannot define deployment " + name + ": output '"
            + output.getKey() + "' names table " + output.getValue() + ", which is not granted for writes");
      }
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("Invalid run timeout of deployment " + name + ": " + timeout);
    }
  }

  /** This deployment with {@code values} as its secrets. */
  public Deployment withSecrets(Map<String, String> values) {
    return new Deployment(name, jar, workerClass, config, values, grants, outputs, timeout);
  }

  @Override
  public String toString() {
    // never the secrets
    return "Deployment[" + name + ", " + workerClass + (jar == null ? "" : " in " + jar) + "]";
  }
}
