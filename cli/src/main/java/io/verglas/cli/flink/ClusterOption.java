package io.verglas.cli.flink;

import java.net.URI;
import picocli.CommandLine.Option;

/** {@code --cluster URL}: the session cluster's REST API (default $VERGLAS_FLINK_URL, else port 8081). */
public final class ClusterOption {
  public static final String DEFAULT_URL = "http://127.0.0.1:8081";

  @Option(names = "--cluster", paramLabel = "URL", description = "The Flink session cluster's "
      + "REST API (default: $VERGLAS_FLINK_URL, else " + DEFAULT_URL + ")")
  String url;

  public FlinkRestClient client() {
    String env = System.getenv("VERGLAS_FLINK_URL");
    String chosen = url != null ? url : env != null && !env.isBlank() ? env : DEFAULT_URL;
    return new FlinkRestClient(URI.create(chosen));
  }
}
