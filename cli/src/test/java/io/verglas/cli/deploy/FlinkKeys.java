package io.verglas.cli.deploy;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;

/**
 * Flink's settings: the keys (and deprecated or fallback keys) of every {@code ConfigOption}
 * declared by an {@code *Options} class of the Flink jars on this JVM's classpath, and the
 * top-level keys of a flat Flink configuration file or of {@code FLINK_PROPERTIES}.
 */
final class FlinkKeys {
  private FlinkKeys() {}

  static Set<String> onClasspath() throws IOException {
    Set<String> keys = new HashSet<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (Path.of(entry).getFileName().toString().startsWith("flink-") && entry.endsWith(".jar")) {
        try (JarFile jar = new JarFile(entry)) {
          for (JarEntry file : Collections.list(jar.entries())) {
            if (file.getName().startsWith("org/apache/flink/") && file.getName().endsWith("Options.class")) {
              addKeys(file.getName().replace('/', '.').replace(".class", ""), keys);
            }
          }
        }
      }
    }
    return keys;
  }

  private static void addKeys(String className, Set<String> keys) {
    try {
      for (Field field : Class.forName(className, false, FlinkKeys.class.getClassLoader()).getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) && ConfigOption.class.isAssignableFrom(field.getType())) {
          field.setAccessible(true);
          ConfigOption<?> option = (ConfigOption<?>) field.get(null);
          keys.add(option.key());
          for (FallbackKey fallback : option.fallbackKeys()) {
            keys.add(fallback.getKey());
          }
        }
      }
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      // a class that cannot load here (an optional dependency missing) declares nothing we use
    }
  }

  /**
   * What a metrics reporter's setting ({@code metrics.reporter.<name>.<option>}) sets: the
   * option, which Flink's reporter options or the reporter's own declare; null for other keys.
   */
  static String reporterOption(String key) {
    java.util.regex.Matcher reporter = REPORTER_KEY.matcher(key);
    return reporter.matches() ? reporter.group(1) : null;
  }

  /** The factory classes a flat configuration file names for its metrics reporters. */
  static List<String> reporterFactories(Path file) throws IOException {
    List<String> factories = new ArrayList<>();
    for (String[] pair : settings(file)) {
      if ("factory.class".equals(reporterOption(pair[0]))) {
        factories.add(pair[1]);
      }
    }
    return factories;
  }

  /** The arguments a reporter factory reads: its {@code ARG_*} string constants (Flink's convention). */
  static Set<String> reporterArguments(Class<?> factory) {
    Set<String> arguments = new HashSet<>();
    for (Field field : factory.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getName().startsWith("ARG_")
          && field.getType() == String.class) {
        try {
          field.setAccessible(true);
          arguments.add((String) field.get(null));
        } catch (ReflectiveOperationException e) {
          throw new AssertionError("Cannot read " + field, e);
        }
      }
    }
    return arguments;
  }

  /** The value a flat configuration file gives {@code key}, or null. */
  static String value(Path file, String key) throws IOException {
    return settings(file).stream().filter(pair -> pair[0].equals(key)).map(pair -> pair[1])
        .findFirst().orElse(null);
  }

  private static List<String[]> settings(Path file) throws IOException {
    return settings(Files.readString(file));
  }

  /**
   * The top-level {@code key: value} lines of a flat configuration (comments, blank and indented
   * lines skipped); a line with no colon fails, as a configuration Flink cannot read.
   */
  private static List<String[]> settings(String text) {
    List<String[]> settings = new ArrayList<>();
    for (String line : text.split("\n")) {
      String stripped = line.strip();
      if (!stripped.isEmpty() && !stripped.startsWith("#") && !line.startsWith(" ")) {
        int colon = stripped.indexOf(':');
        settings.add(new String[] {stripped.substring(0, colon).strip(), stripped.substring(colon + 1).strip()});
      }
    }
    return settings;
  }

  private static final java.util.regex.Pattern REPORTER_KEY =
      java.util.regex.Pattern.compile("metrics\\.reporter\\.[^.]+\\.(.+)");

  /** The keys of a flat YAML configuration file ({@code key: value} lines). */
  static List<String> ofConfigFile(Path file) throws IOException {
    return ofProperties(Files.readString(file));
  }

  static List<String> ofProperties(String text) {
    return settings(text).stream().map(pair -> pair[0]).toList();
  }

}
