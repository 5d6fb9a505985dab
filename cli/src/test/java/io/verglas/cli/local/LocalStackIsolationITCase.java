package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What the local stack exposes to other users of its host: the ports it listens on, the modes
 * of the files that hold its secrets, and the files it leaves outside its data directory.
 */
class LocalStackIsolationITCase {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

  /** A small stack with a smaller cache, with workers on the default database. */
  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().startedByTest().options(config -> config
      .dramCacheBytes(32L << 20).workersJdbcUrl(LocalConfig.WORKERS_JDBC_URL_DEFAULT)).build();
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void destroyProcesses() {
    processes.forEach(Process::destroyForcibly);
  }

  /**
   * Flink's REST endpoints and blob servers listened on every interface, and the REST API, which
   * has no authentication, took job submissions, cancellations and savepoints from anyone.
   */
  @Test
  void listensOnLoopbackOnlyAndFlinksRestApiServesNothing() throws Exception {
    Set<ListeningSockets.Listener> before = ListeningSockets.ofThisProcess();
    EndpointsFile endpoints = local.start().endpoints();

    Set<ListeningSockets.Listener> opened = new HashSet<>(ListeningSockets.ofThisProcess());
    opened.removeAll(before);
    Set<Integer> ours = Set.of(endpoints.s3Endpoint().getPort(),
        endpoints.flightUri().getPort(), endpoints.adminUri().getPort());
    assertThat(opened).extracting(ListeningSockets.Listener::port).containsAll(ours);
    assertThat(opened).as("Flink's REST endpoints and blob servers listen besides our three ports")
        .hasSizeGreaterThan(ours.size());
    assertThat(opened).as("listening sockets not on loopback")
        .allSatisfy(l -> assertThat(l.address().isLoopbackAddress()).as(l.toString()).isTrue());
    assertThat(opened).as("Flink's ports that answer its REST API")
        .filteredOn(l -> !ours.contains(l.port()))
        .noneMatch(l -> answersFlinkRest(l.port()));

    local.stop();
    awaitTrue(Duration.ofSeconds(30),
        () -> "still listening after close: " + stillListening(opened),
        () -> stillListening(opened).isEmpty());
  }

  /** endpoints.json holds the S3 secret and the Flight token, and was written 0644. */
  @Test
  void endpointsFileIsOwnerOnlyEvenWhereAnEarlierBuildLeftItReadable() throws Exception {
    Path endpoints = Files.createDirectories(local.dataDir()).resolve("endpoints.json");
    Files.writeString(endpoints, "{}\n");
    Files.setPosixFilePermissions(endpoints, PosixFilePermissions.fromString("rw-r--r--"));

    LocalStack stack = local.start();

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(endpoints)))
        .isEqualTo("rw-------");
    assertThat(EndpointsFile.read(endpoints).secretKey()).isEqualTo(stack.endpoints().secretKey());
  }

  @Test
  void aSecondStackOnTheSameDataDirectoryIsRefusedAndLeavesTheFirstOneAlone() throws Exception {
    Path data = local.dataDir();
    LocalStack stack = local.start();
    Path keyIndex = data.resolve("tmp").resolve("materializer").resolve("rocksdb");
    awaitTrue(Duration.ofSeconds(60), () -> "no key index in " + keyIndex,
        () -> isNonEmptyDirectory(keyIndex));

    assertThatThrownBy(() -> LocalStack.start(local.config()).close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot use the data directory " + data.toAbsolutePath()
            + ": another Verglas stack is running on it (it holds "
            + data.toAbsolutePath().resolve("lock") + ")");
    assertThat(isNonEmptyDirectory(keyIndex)).isTrue();
    assertThat(stack.endpoints()).isNotNull();
  }

  /**
   * Flink's working, I/O and blob directories and the key index's RocksDB instance lived under
   * java.io.tmpdir and piled up there across runs. Runs {@code verglas local} in child JVMs with
   * a java.io.tmpdir of their own: while it runs, that directory holds nothing but SQLite's
   * native library (which the JVM deletes at exit) and the key index is under the data
   * directory's tmp/; a restart after kill -9 deletes what the killed run left there; a
   * stop with SIGTERM deletes tmp/ and leaves java.io.tmpdir empty, the checkpoints kept.
   */
  @Test
  void temporaryFilesStayUnderTheDataDirectoryAndGoAtStop() throws Exception {
    Path data = local.dataDir();
    Path keyIndex = data.resolve("tmp").resolve("materializer").resolve("rocksdb");
    Path firstTmp = Files.createDirectories(local.dir().resolve("java-tmp-1"));
    Process first = launch(data, firstTmp, local.dir().resolve("first.log"));
    awaitReady(first, data, local.dir().resolve("first.log"));
    awaitTrue(Duration.ofSeconds(60), () -> "no key index in " + keyIndex + "; java.io.tmpdir has "
        + names(firstTmp), () -> isNonEmptyDirectory(keyIndex));
    putSpooledObject(EndpointsFile.read(data.resolve("endpoints.json")));
    assertThat(names(firstTmp)).as("entries in java.io.tmpdir while the stack runs")
        .allMatch(name -> name.startsWith("sqlite-"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data)))
        .as("a data directory the stack creates").isEqualTo("rwx------");

    first.destroyForcibly();
    assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
    Path leftByKill = data.resolve("tmp").resolve("materializer").resolve("left-by-kill");
    Files.writeString(leftByKill, "stale");
    Files.delete(data.resolve("endpoints.json"));

    Path secondTmp = Files.createDirectories(local.dir().resolve("java-tmp-2"));
    Process second = launch(data, secondTmp, local.dir().resolve("second.log"));
    awaitReady(second, data, local.dir().resolve("second.log"));
    assertThat(leftByKill).as("what the killed run left in tmp/").doesNotExist();

    second.destroy();                                      // SIGTERM: the shutdown hook runs
    assertThat(second.waitFor(120, TimeUnit.SECONDS)).as("stopped within 120 s").isTrue();
    assertThat(data.resolve("tmp")).doesNotExist();
    assertThat(data.resolve("checkpoints")).isDirectory();
    assertThat(names(secondTmp)).as("entries left in java.io.tmpdir").isEmpty();
  }

  private Process launch(Path data, Path javaTmp, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx768m");
    command.add("-Djava.io.tmpdir=" + javaTmp);
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(arg -> arg.startsWith("--add-opens")).forEach(command::add);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.verglas.cli.Verglas",
        "local", "--data-dir", data.toString(), "--s3-port", "0", "--flight-port", "0",
        "--admin-port", "0", "--checkpoint-interval-ms", "1000"));
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    processes.add(process);
    return process;
  }

  /** A PUT larger than the S3 endpoint keeps in memory: its body is spooled to a file. */
  private static void putSpooledObject(EndpointsFile e) {
    try (S3Client s3 = S3Client.builder().endpointOverride(e.s3Endpoint()).forcePathStyle(true)
        .region(Region.of(e.region()))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(e.accessKey(), e.secretKey())))
        .build()) {
      s3.putObject(b -> b.bucket(e.bucket()).key("spooled"),
          RequestBody.fromBytes(new byte[9 << 20]));
      assertThat(s3.headObject(b -> b.bucket(e.bucket()).key("spooled")).contentLength())
          .isEqualTo(9L << 20);
    }
  }

  /** endpoints.json is written once the stack is up. */
  private static void awaitReady(Process process, Path data, Path log) throws Exception {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.exists(data.resolve("endpoints.json"))) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("verglas local did not start (alive: " + process.isAlive()
            + "); its output:\n" + Files.readString(log));
      }
      Thread.sleep(200);
    }
  }

  /** Whether GET /overview (the cluster's summary) on {@code port} answers 200. */
  private static boolean answersFlinkRest(int port) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + port + "/overview"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200;
    } catch (IOException notHttp) {
      return false;                                        // the blob server drops the request
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static Set<ListeningSockets.Listener> stillListening(Set<ListeningSockets.Listener> of) {
    try {
      Set<ListeningSockets.Listener> now = new HashSet<>(ListeningSockets.ofThisProcess());
      now.retainAll(of);
      return now;
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static boolean isNonEmptyDirectory(Path path) {
    return Files.isDirectory(path) && !names(path).isEmpty();
  }

  private static List<String> names(Path directory) {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void awaitTrue(Duration timeout, Supplier<String> failure,
      BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("After " + timeout + ": " + failure.get());
      }
      Thread.sleep(200);
    }
  }
}
