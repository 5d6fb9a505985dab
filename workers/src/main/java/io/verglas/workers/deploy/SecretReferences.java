package io.verglas.workers.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resolves a record's secret references where the deployment runs: {@code env:NAME} from the
 * plane's environment, {@code file:/path} from a file's contents (one trailing newline
 * dropped). The values go to the run's process on its standard input, never to a table.
 */
public final class SecretReferences {
  private SecretReferences() {}

  /** Secret name to value; fails naming the first reference that does not resolve. */
  public static Map<String, String> resolve(DeploymentRecord record, Map<String, String> env) {
    Map<String, String> values = new LinkedHashMap<>();
    record.secrets().forEach((key, reference) -> values.put(key, resolve(record.name(), key, reference, env)));
    return values;
  }

  /** One reference's value; fails naming {@code key} of {@code deployment} if it does not resolve. */
  public static String resolve(String deployment, String key, String reference,
      Map<String, String> env) {
    String prefix = "Cannot resolve secret '" + key + "' of deployment " + deployment + ": ";
    if (reference.startsWith("env:")) {
      String value = env.get(reference.substring(4));
      if (value == null) {
        throw new IllegalStateException(prefix + "environment variable "
            + reference.substring(4) + " is not set where the deployment runs");
      }
      return value;
    }
    Path file = Path.of(reference.substring("file:".length()));
    try {
      String text = Files.readString(file);
      return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    } catch (IOException e) {
      throw new IllegalStateException(prefix + "cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
