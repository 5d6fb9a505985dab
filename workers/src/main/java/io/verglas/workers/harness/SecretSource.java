package io.verglas.workers.harness;

import java.util.Map;

/**
 * Where a deployment's secrets are read when a run starts, so a rotated secret (a file
 * rewritten) is what the next run sees, without a redeploy.
 */
@FunctionalInterface
public interface SecretSource {
  /**
   * Secret name to value, read now.
   *
   * @throws SecretUnavailableException naming the reference that did not resolve (never a value)
   */
  Map<String, String> read();
}
