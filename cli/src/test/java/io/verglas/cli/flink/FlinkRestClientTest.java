package io.verglas.cli.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors of the REST calls, against an HTTP server that answers as Flink does when a job's
 * main method fails (the session cluster itself runs in SessionClusterITCase).
 */
class FlinkRestClientTest {
  private static final String FLINK_ERROR = "{\"errors\":[\"org.apache.flink.runtime.rest.handler."
      + "RestHandlerException: Could not execute application.\\n\\tat org.apache.flink.Foo.bar(Foo.java:1)"
      + "\\n\\t... 3 more\\nCaused by: java.lang.IllegalArgumentException: Unknown argument: --bogus\"]}";

  @TempDir Path dir;
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void submitSaysWhichJobWhichClusterAndFlinksMessageWithoutStackFrames() throws Exception {
    URI cluster = serve();
    JobJar jar = new JobJar("materializer", jar(), "io.example.Main");
    ByteArrayOutputStream progress = new ByteArrayOutputStream();

    assertThatThrownBy(() -> new JobSubmitter(new FlinkRestClient(cluster),
        new PrintStream(progress, true, StandardCharsets.UTF_8))
        .submit(jar, new JobRun(jar.entryClass(), List.of("--bogus"), null, null)))
        .hasMessage("Cannot submit the materializer job: the cluster at " + cluster + " answered 500: "
            + "org.apache.flink.runtime.rest.handler.RestHandlerException: Could not execute application."
            + " | Caused by: java.lang.IllegalArgumentException: Unknown argument: --bogus");
    assertThat(progress.toString(StandardCharsets.UTF_8)).startsWith("Uploading job.jar (0 MB) to " + cluster);
  }

  @Test
  void stopWithSavepointWaitsForTheSavepointAndAnswersItsPath() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    int[] polls = {0};
    server.createContext("/jobs/j1/stop", exchange -> {
      exchange.getRequestBody().readAllBytes();
      answer(exchange, 202, "{\"request-id\":\"r1\"}");
    });
    server.createContext("/jobs/j1/savepoints/r1", exchange -> answer(exchange, 200,
        ++polls[0] < 3 ? "{\"status\":{\"id\":\"IN_PROGRESS\"}}"
            : "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"s3://b/sp-1\"}}"));
    server.createContext("/jobs/j2/stop", exchange -> {
      exchange.getRequestBody().readAllBytes();
      answer(exchange, 202, "{\"request-id\":\"r2\"}");
    });
    server.createContext("/jobs/j2/savepoints/r2", exchange -> answer(exchange, 200,
        "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failure-cause\":"
            + "{\"stack-trace\":\"java.lang.IllegalStateException: No savepoint directory\\n\\tat x\"}}}"));
    server.start();
    FlinkRestClient rest = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()));

    assertThat(rest.stopWithSavepoint("j1", null, java.time.Duration.ofSeconds(30))).isEqualTo("s3://b/sp-1");
    assertThat(polls[0]).isEqualTo(3);
    assertThatThrownBy(() -> rest.stopWithSavepoint("j2", "file:///x", java.time.Duration.ofSeconds(30)))
        .hasMessage("the savepoint of job j2 failed: java.lang.IllegalStateException: No savepoint directory");
  }

  @Test
  void aLongCauseChainIsCutToWhatFailedAndWhy() {
    String body = "{\"errors\":[\"A: Could not execute application.\\nCaused by: B: Could not execute"
        + " application.\\nCaused by: C: The main method caused an error: bad\\nCaused by: D: bad\"]}";
    assertThat(FlinkRestClient.errorMessage(body))
        .isEqualTo("A: Could not execute application. | ... | Caused by: D: bad");
  }

  @Test
  void aClusterThatDoesNotAnswerIsSaidSo() {
    FlinkRestClient rest = new FlinkRestClient(URI.create("http://127.0.0.1:1"));
    assertThatThrownBy(rest::jobs).isInstanceOf(FlinkRestException.class)
        .hasMessageStartingWith("the cluster at http://127.0.0.1:1 does not answer")
        .satisfies(e -> assertThat(((FlinkRestException) e).status()).isZero());
  }

  @Test
  void aJarPathWithoutMainClassIsRefused() throws Exception {
    Path plain = dir.resolve("plain.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(plain))) {
      out.flush();
    }
    assertThatThrownBy(() -> JobJar.resolve(plain.toString()))
        .hasMessage("Cannot submit " + plain + ": its manifest names no Main-Class");
    assertThatThrownBy(() -> JobJar.resolve(dir.resolve("missing.jar").toString()))
        .hasMessageStartingWith("Cannot submit " + dir.resolve("missing.jar") + ": no such file");
    assertThat(JobJar.resolve(jar().toString()).entryClass()).isEqualTo("io.example.Main");
  }

  /** Uploads succeed; running fails as Flink answers a failing main method. */
  private URI serve() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/jars/upload", exchange -> {
      exchange.getRequestBody().readAllBytes();
      answer(exchange, 200, "{\"filename\":\"/tmp/flink-web/upload/abc_job.jar\",\"status\":\"success\"}");
    });
    server.createContext("/jars/abc_job.jar/run", exchange -> answer(exchange, 500, FLINK_ERROR));
    server.createContext("/jars/abc_job.jar", exchange -> answer(exchange, 200, "{}"));
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
      throws java.io.IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private Path jar() throws Exception {
    Path jar = dir.resolve("job.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.example.Main");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
      out.flush();
    }
    return jar;
  }
}
