package io.verglas.cli.stack;

import io.verglas.catalog.Catalogs;
import io.verglas.cli.local.EndpointsFile;
import io.verglas.sdk.BatchCompression;
import io.verglas.sdk.VerglasClient;
import java.nio.file.Path;
import org.apache.iceberg.catalog.Catalog;
import picocli.CommandLine.Option;

/** Options shared by commands that talk to a running stack: where its endpoints.json is. */
public final class StackOptions {
  @Option(names = "--endpoints", description = "endpoints.json of a running stack "
      + "(default: $VERGLAS_ENDPOINTS, else DATA_DIR/endpoints.json)")
  Path endpointsFile;

  @Option(names = "--data-dir", description = "Data directory of `verglas local` (default: .verglas)")
  Path dataDir;

  public EndpointsFile endpoints() {
    if (endpointsFile != null) {
      return EndpointsFile.read(endpointsFile);
    }
    String env = System.getenv("VERGLAS_ENDPOINTS");
    if (env != null && !env.isBlank() && dataDir == null) {
      return EndpointsFile.read(Path.of(env));
    }
    return EndpointsFile.read((dataDir == null ? Path.of(".verglas") : dataDir).resolve("endpoints.json"));
  }

  public VerglasClient client() {
    return client(BatchCompression.defaults());
  }

  /** A client whose writers compress batches as {@code compression} says. */
  public VerglasClient client(BatchCompression compression) {
    EndpointsFile e = endpoints();
    return VerglasClient.builder().uri(e.flightUri().toString()).token(e.flightToken())
        .batchCompression(compression).build();
  }

  public Catalog catalog() {
    EndpointsFile e = endpoints();
    return Catalogs.load(e.catalogName(), e.catalogProperties());
  }
}
