package io.verglas.workers.deploy;

import io.verglas.workers.harness.SecretSource;
import io.verglas.workers.harness.SecretUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resolves a record's secret references where the deployment runs: {@code env:NAME} from the
 * plane's environment, {@code file:/path} from a file's contents (one trailing newline
 * dropped). The values go to the run's process on its standard input, never to a table. The
 * local plane resolves them as each run starts ({@link #source}), so a rotated file secret is
 * what the next run reads.
 */
public final class SecretReferences {
  private SecretReferences() {}

  /** Secret name to value; fails naming the first reference that does not resolve. */
  public static Map<String, String> resolve(DeploymentRecord record, Map<String, String> env) {
    Map<String, String> values = new LinkedHashMap<>();
    record.secrets().forEach((key, reference) ->
        values.put(key, resolve(record.name(), key, reference, env)));
    return values;
  }

  /** The record's secrets, resolved each time they are read. */
  public static SecretSource source(DeploymentRecord record, Map<String, String> env) {
    return () -> resolve(record, env);
  }

  /**
   * One reference's value.
   *
   * @throws SecretUnavailableException naming {@code key} of {@code deployment} and the
   *     reference if it does not resolve (never a value)
   */
  public static String resolve(String deployment, String key, String reference,
      Map<String, String> env) {
    String prefix = "Cannot resolve secret '" + key + "' (" + reference + ") of deployment "
        + deployment + ": ";
    if (reference.startsWith("env:")) {
      String value = env.get(reference.substring(4));
      if (value == null) {
        throw new SecretUnavailableException(prefix + "environment variable "
            + reference.substring(4) + " is not set where the deployment runs", null);
      }
      return value;
    }
    Path file = Path.of(reference.substring("file:".length()));
    try {
      String text = Files.readString(file);
      return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    } catch (IOException e) {
      throw new SecretUnavailableException(prefix + "cannot read " + file + " ("
          + e.getClass().getSimpleName() + ")", e);
    }
  }
}
