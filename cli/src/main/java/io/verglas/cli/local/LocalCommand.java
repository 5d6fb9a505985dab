package io.verglas.cli.local;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code verglas local}: the whole stack in this process until Ctrl-C or SIGTERM. */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Run the whole stack in one process: S3 endpoint with block cache over a local "
        + "directory origin, JDBC catalog on SQLite, Arrow Flight ingest, materializer on a Flink "
        + "MiniCluster, change feed. Writes DIR/endpoints.json when ready.")
public final class LocalCommand implements Callable<Integer> {
  @Option(names = "--data-dir", description = "Data directory (default: .verglas)")
  Path dataDir;

  @Option(names = "--config", description = "Properties file with local.* keys; flags override it")
  Path configFile;

  @Option(names = "--host", description = "Address of the S3, Flight and admin ports (default: "
      + "127.0.0.1); Flink's own ports always stay on 127.0.0.1")
  String host;

  @Option(names = "--s3-port", description = "S3 endpoint port (default: 9100)")
  Integer s3Port;

  @Option(names = "--flight-port", description = "Arrow Flight port (default: 8815)")
  Integer flightPort;

  @Option(names = "--admin-port", description = "Admin/events port (default: 9101)")
  Integer adminPort;

  @Option(names = "--checkpoint-interval-ms", description = "Materializer checkpoint interval (default: 2000)")
  Long checkpointMillis;

  @Override
  public Integer call() throws Exception {
    LocalConfig config = config();
    System.out.println("Starting Verglas in " + config.dataDir() + " ...");
    LocalStack stack = LocalStack.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("Stopping Verglas ...");
      stack.close();
      stopped.countDown();
    }, "verglas-shutdown"));
    EndpointsFile e = stack.endpoints();
    System.out.println("Verglas is up.");
    System.out.println("  S3 endpoint   " + e.s3Endpoint() + "  (bucket " + e.bucket() + ", region " + e.region() + ")");
    System.out.println("  Flight        " + e.flightUri());
    System.out.println("  Catalog       " + e.catalogProperties().get("uri") + " (JDBC; REST proxy " + e.catalogRestUri() + " not built yet)");
    System.out.println("  Admin         " + e.adminUri() + "/health  " + e.adminUri() + "/stats");
    System.out.println("  Change feed   " + e.eventsUri() + "?follow=true");
    System.out.println("  Credentials and all properties: " + config.endpointsFile());
    System.out.println("Press Ctrl-C to stop.");
    stopped.await();
    return 0;
  }

  private LocalConfig config() throws IOException {
    LocalConfig.Builder builder = LocalConfig.builder();
    if (configFile != null) {
      Properties props = new Properties();
      try (Reader reader = Files.newBufferedReader(configFile)) {
        props.load(reader);
      }
      builder.apply(props);
    }
    if (dataDir != null) { builder.dataDir(dataDir); }
    if (host != null) { builder.host(host); }
    if (s3Port != null) { builder.s3Port(s3Port); }
    if (flightPort != null) { builder.flightPort(flightPort); }
    if (adminPort != null) { builder.adminPort(adminPort); }
    if (checkpointMillis != null) { builder.checkpointInterval(Duration.ofMillis(checkpointMillis)); }
    return builder.build();
  }
}
