package io.verglas.cli.logging;

import java.util.Map;

/**
 * Chooses the launcher's log format before anything logs: {@code VERGLAS_LOG_FORMAT=json} makes
 * logback read {@code logback-json.xml} (one JSON object a line), {@code text} or nothing keeps
 * {@code logback.xml}. An explicit {@code -Dlogback.configurationFile} wins.
 */
public final class LogFormat {
  public static final String VARIABLE = "VERGLAS_LOG_FORMAT";
  static final String LOGBACK_CONFIGURATION = "logback.configurationFile";

  private LogFormat() {}

  /** Applies the format {@code environment} asks for; throws on a format it does not know. */
  public static void apply(Map<String, String> environment) {
    String format = environment.get(VARIABLE);
    if (format == null || format.isBlank() || format.equalsIgnoreCase("text")) {
      return;
    }
    if (!format.equalsIgnoreCase("json")) {
      throw new IllegalArgumentException("Cannot use log format " + format + " (" + VARIABLE
          + "): text or json");
    }
    if (System.getProperty(LOGBACK_CONFIGURATION) == null) {
      System.setProperty(LOGBACK_CONFIGURATION, "logback-json.xml");
    }
  }
}
