package io.verglas.ingest;

import io.verglas.access.ScopedTokens;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.iceberg.catalog.Catalog;

/**
 * Runs one ingest server as a process of its own (containers, tests that kill it):
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp ... io.verglas.ingest.IngestServerMain \
 *   --stream ingest-1 --token secret --port 8815 \
 *   --s3-endpoint http://127.0.0.1:9000 --s3-access-key k --s3-secret-key s --bucket warehouse \
 *   --catalog-prop type=jdbc --catalog-prop uri=jdbc:sqlite:/tmp/c.db \
 *   --catalog-prop warehouse=s3://warehouse/
 * </pre>
 *
 * Optional: {@code --host} (127.0.0.1), {@code --s3-region} (us-east-1), {@code --catalog-name}
 * (verglas), {@code --wal-prefix} (_wal), {@code --lanes}, {@code --flush-bytes},
 * {@code --flush-interval-ms}, {@code --flush-linger-ms}, {@code --max-concurrent-puts},
 * {@code --max-concurrent-puts-per-connection}. With the environment variable
 * {@value io.verglas.access.ScopedTokens#KEY_ENV} set it also accepts scoped tokens signed with
 * that key, and with {@value io.verglas.access.ScopedTokens#PREVIOUS_KEYS_ENV} (comma-separated)
 * also those signed with earlier keys (secrets, so never arguments). Once serving it prints
 * {@code VERGLAS_INGEST_READY port=<port>} on standard output; it stops cleanly on SIGTERM.
 */
public final class IngestServerMain {
  public static final String READY = "VERGLAS_INGEST_READY port=";
  /** Every option it takes (each followed by a value); any other is refused. */
  public static final Set<String> OPTIONS = Set.of("stream", "token", "host", "port",
      "s3-endpoint", "s3-region", "s3-access-key", "s3-secret-key", "bucket", "catalog-name",
      "catalog-prop", "wal-prefix", "lanes", "flush-bytes", "flush-interval-ms",
      "flush-linger-ms", "max-concurrent-puts", "max-concurrent-puts-per-connection");

  private IngestServerMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    Map<String, String> catalogProps = new LinkedHashMap<>();
    List<String> rest = new ArrayList<>(List.of(args));
    while (!rest.isEmpty()) {
      String name = rest.remove(0);
      if (!name.startsWith("--") || rest.isEmpty()) {
        throw usage("expected --option value but got '" + name + "'");
      }
      String value = rest.remove(0);
      if (!OPTIONS.contains(name.substring(2))) {
        throw usage("unknown option '" + name + "'");
      }
      if (name.equals("--catalog-prop")) {
        int eq = value.indexOf('=');
        if (eq <= 0) {
          throw usage("--catalog-prop needs key=value but got '" + value + "'");
        }
        catalogProps.put(value.substring(0, eq), value.substring(eq + 1));
      } else {
        options.put(name.substring(2), value);
      }
    }
    ObjectStoreEndpoint store = new ObjectStoreEndpoint(
        URI.create(required(options, "s3-endpoint")),
        options.getOrDefault("s3-region", "us-east-1"), required(options, "s3-access-key"),
        required(options, "s3-secret-key"), required(options, "bucket"));
    Map<String, String> props = new LinkedHashMap<>(store.s3FileIoProperties());
    props.putAll(catalogProps);
    Catalog catalog = Catalogs.load(options.getOrDefault("catalog-name", "verglas"), props);
    IngestServer.Builder builder = IngestServer.builder()
        .host(options.getOrDefault("host", "127.0.0.1"))
        .port(Integer.parseInt(options.getOrDefault("port", "0")))
        .catalog(catalog)
        .objectStore(store)
        .walLayout(new WalLayout(options.getOrDefault("wal-prefix", WalLayout.DEFAULT_PREFIX)))
        .streamId(required(options, "stream"))
        .token(required(options, "token"));
    ScopedTokens.fromEnvironment(System.getenv(), Clock.systemUTC()).ifPresent(builder::scopedTokens);
    if (options.containsKey("lanes")) {
      builder.lanes(Integer.parseInt(options.get("lanes")));
    }
    if (options.containsKey("flush-bytes")) {
      builder.flushBytes(Long.parseLong(options.get("flush-bytes")));
    }
    if (options.containsKey("flush-interval-ms")) {
      builder.flushInterval(Duration.ofMillis(Long.parseLong(options.get("flush-interval-ms"))));
    }
    if (options.containsKey("flush-linger-ms")) {
      builder.flushLinger(Duration.ofMillis(Long.parseLong(options.get("flush-linger-ms"))));
    }
    if (options.containsKey("max-concurrent-puts")) {
      builder.maxConcurrentPuts(Integer.parseInt(options.get("max-concurrent-puts")));
    }
    if (options.containsKey("max-concurrent-puts-per-connection")) {
      builder.maxConcurrentPutsPerConnection(
          Integer.parseInt(options.get("max-concurrent-puts-per-connection")));
    }
    IngestServer server = builder.build().start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "verglas-ingest-shutdown"));
    System.out.println(READY + server.port());
    System.out.flush();
    stopped.await();
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null) {
      throw usage("missing --" + name);
    }
    return value;
  }

  private static IllegalArgumentException usage(String problem) {
    return new IllegalArgumentException("Cannot start ingest server: " + problem + " (see the "
        + "IngestServerMain class comment for the options)");
  }
}
