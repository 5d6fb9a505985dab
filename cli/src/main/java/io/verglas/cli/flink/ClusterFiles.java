package io.verglas.cli.flink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * A session cluster's directory: {@code conf/} (config.yaml, logback.xml), {@code log/} and
 * {@code tmp/}. The config is {@code flink-conf/config.yaml} (carried in the launcher's jar)
 * with the cluster's settings and the local ones applied: every server on 127.0.0.1, the ports
 * chosen, Flink's working files under {@code tmp/}.
 */
final class ClusterFiles {
  static final String HOST = "127.0.0.1";
  private static final String CONFIG_RESOURCE = "/flink-conf/config.yaml";
  private static final String LOGBACK_RESOURCE = "logback-cluster.xml";

  private final Path directory;

  ClusterFiles(Path directory) {
    this.directory = directory;
  }

  Path confDir() { return directory.resolve("conf"); }
  Path logDir() { return directory.resolve("log"); }
  Path tmpDir() { return directory.resolve("tmp"); }

  /** Writes {@code conf/}; returns the configuration the processes will read. */
  Configuration write(FlinkClusterConfig config, int restPort, int rpcPort) {
    try {
      Files.createDirectories(confDir());
      Files.createDirectories(logDir());
      Files.createDirectories(tmpDir());
      copyResource(ClusterFiles.class, CONFIG_RESOURCE, confDir().resolve("config.yaml"));
      copyResource(ClusterFiles.class, LOGBACK_RESOURCE, confDir().resolve("logback.xml"));
      Configuration conf = GlobalConfiguration.loadConfiguration(confDir().toString());
      for (Map.Entry<String, String> local : localSettings(restPort, rpcPort).entrySet()) {
        conf.setString(local.getKey(), local.getValue());
      }
      for (Map.Entry<String, String> override : config.overrides().entrySet()) {
        conf.setString(override.getKey(), override.getValue());
      }
      List<String> lines = new ArrayList<>();
      lines.add("# Written by verglas from flink-conf/config.yaml with the local cluster's settings.");
      lines.addAll(ConfigurationUtils.convertConfigToWritableLines(conf, true));
      Files.write(confDir().resolve("config.yaml"), lines);
      return conf;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the Flink configuration in " + confDir()
          + ": " + e.getMessage(), e);
    }
  }

  /** Loopback for every server (Flink's REST API has no authentication), fixed ports, tmp/. */
  private Map<String, String> localSettings(int restPort, int rpcPort) {
    return Map.ofEntries(
        Map.entry("rest.address", HOST),
        Map.entry("rest.bind-address", HOST),
        Map.entry("rest.port", Integer.toString(restPort)),
        Map.entry("rest.bind-port", Integer.toString(restPort)),
        Map.entry("jobmanager.rpc.address", HOST),
        Map.entry("jobmanager.rpc.port", Integer.toString(rpcPort)),
        Map.entry("jobmanager.bind-host", HOST),
        Map.entry("taskmanager.bind-host", HOST),
        Map.entry("taskmanager.host", HOST),
        Map.entry("io.tmp.dirs", tmpDir().resolve("io").toString()),
        Map.entry("web.tmpdir", tmpDir().resolve("web").toString()),
        Map.entry("web.upload.dir", tmpDir().resolve("upload").toString()));
  }

  private static void copyResource(Class<?> owner, String name, Path target) throws IOException {
    try (InputStream in = owner.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("the resource " + name + " is not in the launcher's jar");
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
