package io.verglas.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.verglas.catalog.Catalogs;
import io.verglas.cli.Verglas;
import io.verglas.cli.local.TestingOrders;
import io.verglas.sdk.VerglasClient;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import picocli.CommandLine;

/**
 * docker/compose.yaml end to end, where a Docker engine is reachable ({@code mvn -B verify
 * -Pcontainers}; without one it is skipped, saying so): the images are built from this
 * checkout, the stack comes up, the materializer is submitted with the compose file's own
 * {@code submit} command (from this JVM, to the JobManager's published REST port), rows
 * pushed to the ingest container over Flight come back exactly once from the table read
 * through the cache node's REST catalog and S3 endpoint.
 *
 * <p>The stack publishes its ports on the Docker host's 127.0.0.1 (compose.yaml), and the
 * REST catalog's config answer points clients at {@code http://127.0.0.1:9100}: this test
 * expects the engine on this machine.
 */
class ComposeStackContainersIT {
  private static final Path DOCKER = Path.of("..", "docker").toAbsolutePath().normalize();
  private static final Duration STARTUP = Duration.ofMinutes(15);   // includes building the images

  @Test
  void composeStackCommitsPushedRowsReadBackThroughTheCacheNode() throws Exception {
    assumeTrue(dockerAvailable(), "No Docker engine is reachable (DOCKER_HOST or "
        + "/var/run/docker.sock): the compose stack cannot be started here");
    Properties env = env();
    ComposeContainer stack = new ComposeContainer(DOCKER.resolve("compose.yaml").toFile())
        .withBuild(true)   // the images of this checkout; the local `docker compose` runs it
        .waitingFor("cache-node", Wait.forLogMessage(".*The cache node is up.*", 1).withStartupTimeout(STARTUP))
        .waitingFor("ingest", Wait.forLogMessage(".*VERGLAS_INGEST_READY.*", 1).withStartupTimeout(STARTUP))
        .waitingFor("taskmanager", Wait.forLogMessage(".*Successful registration at resource manager.*", 1)
            .withStartupTimeout(STARTUP));
    stack.start();
    try {
      int exit = submit();
      assertThat(exit).as("verglas submit's exit code").isZero();
      push(env, 0, 1000);
      assertThat(TestingOrders.awaitIds(catalog(env), 1000, Duration.ofMinutes(5)))
          .containsExactlyElementsOf(TestingOrders.ids(0, 1000));
    } finally {
      stack.stop();
    }
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The compose file's submit command, to the JobManager's published port. */
  private static int submit() throws IOException {
    List<String> command = new ArrayList<>(
        Compose.read(DOCKER.resolve("compose.yaml"), DOCKER.resolve(".env")).command("submit"));
    command.set(command.indexOf("--cluster") + 1, "http://127.0.0.1:8081");
    return new CommandLine(new Verglas()).execute(command.toArray(String[]::new));
  }

  private static void push(Properties env, long first, int count) {
    try (VerglasClient client = VerglasClient.builder().uri("grpc+tcp://127.0.0.1:8815")
        .token(env.getProperty("VERGLAS_FLIGHT_TOKEN")).build()) {
      TestingOrders.push(client, first, count);
    }
  }

  /** The cache node's REST catalog, reading files through the cache node with the clients' keys. */
  private static Catalog catalog(Properties env) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("type", "rest");
    props.put("uri", "http://127.0.0.1:9100/catalog");
    props.put("token", env.getProperty("VERGLAS_CATALOG_TOKEN"));
    props.put("s3.access-key-id", env.getProperty("VERGLAS_S3_ACCESS_KEY"));
    props.put("s3.secret-access-key", env.getProperty("VERGLAS_S3_SECRET_KEY"));
    return Catalogs.load("verglas", props);
  }

  private static Properties env() throws IOException {
    Properties env = new Properties();
    try (var reader = Files.newBufferedReader(DOCKER.resolve(".env"))) {
      env.load(reader);
    }
    return env;
  }
}
