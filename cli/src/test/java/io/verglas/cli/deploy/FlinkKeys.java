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

  /** The keys of a flat YAML configuration file ({@code key: value} lines). */
  static List<String> ofConfigFile(Path file) throws IOException {
    return ofProperties(Files.readString(file));
  }

  static List<String> ofProperties(String text) {
    List<String> keys = new ArrayList<>();
    for (String line : text.split("\n")) {
      String stripped = line.strip();
      if (!stripped.isEmpty() && !stripped.startsWith("#") && !line.startsWith(" ")) {
        keys.add(stripped.substring(0, stripped.indexOf(':')));
      }
    }
    return keys;
  }
}
