package io.verglas.cli.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * compose.yaml as the deployment test reads it: {@code ${VAR}} replaced from the .env file
 * beside it (a variable it does not define fails, as it would leave an empty key in a
 * container), then the services' build files, images, commands, environments and ports.
 */
final class Compose {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)}");
  private final Map<String, Map<String, Object>> services;

  private Compose(Map<String, Map<String, Object>> services) {
    this.services = services;
  }

  @SuppressWarnings("unchecked")
  static Compose read(Path file, Path envFile) throws IOException {
    Properties env = new Properties();
    try (var reader = Files.newBufferedReader(envFile)) {
      env.load(reader);
    }
    Matcher matcher = VARIABLE.matcher(Files.readString(file));
    StringBuilder text = new StringBuilder();
    while (matcher.find()) {
      String value = env.getProperty(matcher.group(1));
      if (value == null) {
        throw new IllegalStateException("Cannot read " + file + ": ${" + matcher.group(1)
            + "} is not defined in " + envFile);
      }
      matcher.appendReplacement(text, Matcher.quoteReplacement(value));
    }
    matcher.appendTail(text);
    // YAML 1.2 as Flink reads its config.yaml (snakeyaml-engine comes with flink-core)
    Map<String, Object> root = (Map<String, Object>) new Load(LoadSettings.builder().build())
        .loadFromString(text.toString());
    return new Compose((Map<String, Map<String, Object>>) root.get("services"));
  }

  /** Each service built here and its Dockerfile's file name. */
  @SuppressWarnings("unchecked")
  Map<String, String> dockerfiles() {
    Map<String, String> files = new LinkedHashMap<>();
    services.forEach((name, service) -> {
      if (service.get("build") instanceof Map<?, ?> build) {
        files.put(name, Path.of((String) ((Map<String, Object>) build).get("dockerfile")).getFileName().toString());
      }
    });
    return files;
  }

  /** Each service run from a published image and the image. */
  Map<String, String> images() {
    Map<String, String> images = new LinkedHashMap<>();
    services.forEach((name, service) -> {
      if (service.get("image") != null) {
        images.put(name, (String) service.get("image"));
      }
    });
    return images;
  }

  @SuppressWarnings("unchecked")
  List<String> command(String service) {
    return (List<String>) service(service).get("command");
  }

  @SuppressWarnings("unchecked")
  Map<String, String> environment(String service) {
    return (Map<String, String>) service(service).getOrDefault("environment", Map.of());
  }

  /** The container side of the service's published ports ({@code [address:]host:container}). */
  @SuppressWarnings("unchecked")
  List<Integer> publishedContainerPorts(String service) {
    return ((List<String>) service(service).getOrDefault("ports", List.of())).stream()
        .map(port -> Integer.valueOf(port.substring(port.lastIndexOf(':') + 1)))
        .toList();
  }

  private Map<String, Object> service(String name) {
    Map<String, Object> service = services.get(name);
    if (service == null) {
      throw new IllegalStateException("compose.yaml has no service " + name);
    }
    return service;
  }
}
