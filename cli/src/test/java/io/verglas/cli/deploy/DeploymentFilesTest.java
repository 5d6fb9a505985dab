package io.verglas.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.verglas.access.ScopedTokens;
import io.verglas.cli.Verglas;
import io.verglas.cli.cachenode.NodeKeys;
import io.verglas.cli.flink.JobJar;
import io.verglas.cli.local.LocalConfig;
import io.verglas.ingest.IngestServerMain;
import io.verglas.materializer.MaterializerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * docker/ against the build, without a Docker engine (none runs on the development machines):
 * every artifact the Dockerfiles copy is one the reactor builds or resolves, every class,
 * command, option, job argument and configuration key they or compose.yaml name exists, and
 * the ports they expose and publish are the ones the commands listen on. What this cannot
 * tell (that the images build and the stack runs) is ComposeStackContainersIT's, in the
 * {@code containers} profile.
 */
class DeploymentFilesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DOCKER = ROOT.resolve("docker");
  private static final String LAUNCHER = "/opt/verglas/verglas";
  /** The local Maven repository of the build stage (the maven image runs as root). */
  private static final String REPOSITORY = "/root/.m2/repository";

  private static Compose compose;
  private static Map<String, Dockerfile> dockerfiles;

  @BeforeAll
  static void read() throws IOException {
    compose = Compose.read(DOCKER.resolve("compose.yaml"), DOCKER.resolve(".env"));
    try (Stream<Path> files = Files.list(DOCKER)) {
      dockerfiles = new java.util.TreeMap<>();
      for (Path file : files.filter(f -> f.toString().endsWith(".Dockerfile")).toList()) {
        dockerfiles.put(file.getFileName().toString(), Dockerfile.read(file));
      }
    }
  }

  @Test
  void composeBuildsEveryRoleFromItsDockerfileAndPinsItsImages() {
    assertThat(dockerfiles).containsOnlyKeys("launcher.Dockerfile", "cache-node.Dockerfile",
        "ingest.Dockerfile", "flink.Dockerfile");
    assertThat(compose.dockerfiles()).containsOnlyKeys("cache-node", "ingest", "jobmanager",
        "taskmanager", "submit");
    assertThat(new HashSet<>(compose.dockerfiles().values()))
        .containsExactlyInAnyOrderElementsOf(dockerfiles.keySet());
    assertThat(compose.images()).containsOnlyKeys("minio", "postgres")
        .allSatisfy((service, image) -> assertThat(image).contains(":").doesNotEndWith(":latest"));
  }

  @Test
  void copiedArtifactsAreWhatTheReactorBuildsOrResolves() throws Exception {
    BuiltArtifacts built = BuiltArtifacts.of(ROOT.resolve("cli/pom.xml"));
    Set<String> classpath = Set.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator));
    for (Dockerfile dockerfile : dockerfiles.values()) {
      for (String source : dockerfile.copiedFromBuild()) {
        if (source.equals(REPOSITORY)) {
          // the whole local repository: launcher.classpath names its jars, rewritten to where it goes
          assertThat(dockerfile.all("RUN")).as("%s rewrites launcher.classpath", dockerfile.path())
              .anySatisfy(run -> assertThat(run.arguments()).contains("s#" + REPOSITORY + "#"
                  + dockerfile.copyDestination(REPOSITORY) + "#g' cli/target/launcher.classpath"));
        } else if (source.startsWith(REPOSITORY + "/")) {
          String tail = source.substring(REPOSITORY.length() + 1);
          assertThat(classpath).as("%s: %s on the build's runtime classpath", dockerfile.path(), source)
              .anySatisfy(entry -> assertThat(entry.replace('\\', '/')).endsWith("/" + tail));
        } else {
          assertThat(source).as("%s copies from the build's /src", dockerfile.path()).startsWith("/src/");
          assertThat(built.contains(source.substring("/src/".length())))
              .as("%s: %s is built by the reactor (%s)", dockerfile.path(), source, built).isTrue();
        }
      }
      for (Dockerfile.Instruction copy : dockerfile.all("COPY")) {
        if (copy.words().stream().noneMatch(w -> w.startsWith("--from="))) {
          List<String> paths = copy.words().stream().filter(w -> !w.startsWith("--")).toList();
          paths.subList(0, paths.size() - 1).forEach(path -> assertThat(ROOT.resolve(path))
              .as("%s copies %s from the repository", dockerfile.path(), path).exists());
        }
      }
    }
  }

  @Test
  void launcherImagesRunTheVerglasScriptWithCommandsAndOptionsItHas() {
    for (String name : List.of("launcher.Dockerfile", "cache-node.Dockerfile")) {
      Dockerfile dockerfile = dockerfiles.get(name);
      assertThat(dockerfile.last("COPY").arguments()).isEqualTo("verglas " + LAUNCHER);
      List<String> entrypoint = dockerfile.last("ENTRYPOINT").execForm();
      assertThat(entrypoint.get(0)).isEqualTo(LAUNCHER);
      parse(concat(entrypoint.subList(1, entrypoint.size()), dockerfile.last("CMD").execForm()));
    }
    ParseResult cacheNode = parse(concat(List.of("cache-node"), compose.command("cache-node")));
    assertThat(cacheNode.subcommand().commandSpec().name()).isEqualTo("cache-node");
    ParseResult submit = parse(compose.command("submit"));
    assertThat(submit.subcommand().matchedPositional(0).getValue().toString())
        .isEqualTo(JobJar.MATERIALIZER);
  }

  @Test
  void submittedArgumentsAreTheMaterializersSettingsAndTheClusterIsTheJobManager() {
    List<String> command = compose.command("submit");
    List<String> jobArgs = command.subList(command.indexOf("--") + 1, command.size());
    assertThatCode(() -> MaterializerConfig.fromArgs(jobArgs.toArray(String[]::new)))
        .doesNotThrowAnyException();
    assertThat(option(command, "--cluster"))
        .isEqualTo("http://jobmanager:" + RestOptions.PORT.defaultValue());
  }

  @Test
  void ingestImageRunsTheIngestServerWithOptionsItTakes() throws Exception {
    String entrypoint = String.join(" ", dockerfiles.get("ingest.Dockerfile").last("ENTRYPOINT").execForm());
    assertThat(entrypoint).contains(" " + IngestServerMain.class.getName() + " ")
        .contains("--add-opens=java.base/java.nio=ALL-UNNAMED");
    List<String> command = compose.command("ingest");
    for (int i = 0; i < command.size(); i += 2) {
      assertThat(command.get(i)).startsWith("--");
      assertThat(IngestServerMain.OPTIONS).as("ingest option").contains(command.get(i).substring(2));
    }
    assertThat(command).contains("--stream", "--token", "--s3-endpoint", "--s3-access-key",
        "--s3-secret-key", "--bucket", "--host", "--port");
    assertThat(option(command, "--s3-endpoint")).isEqualTo("http://cache-node:" + option(compose.command("cache-node"), "--port"));
  }

  @Test
  void exposedAndPublishedPortsAreTheOnesTheCommandsListenOn() throws IOException {
    List<String> node = compose.command("cache-node");
    Set<Integer> nodePorts = Set.of(Integer.valueOf(option(node, "--port")), Integer.valueOf(option(node, "--admin-port")));
    assertThat(dockerfiles.get("cache-node.Dockerfile").exposed()).containsExactlyInAnyOrderElementsOf(nodePorts);
    assertThat(compose.publishedContainerPorts("cache-node")).containsExactlyInAnyOrderElementsOf(nodePorts);

    int flight = Integer.parseInt(option(compose.command("ingest"), "--port"));
    assertThat(dockerfiles.get("ingest.Dockerfile").exposed()).containsExactly(flight);
    assertThat(compose.publishedContainerPorts("ingest")).containsExactly(flight);

    // the flink image: REST, JobManager RPC and blob server (6124: the official image's setting),
    // and the first port of the Prometheus reporter's range
    int scrape = Integer.parseInt(FlinkKeys.value(ROOT.resolve("flink-conf/config.yaml"),
        "metrics.reporter.prom.port").split("-")[0]);
    assertThat(dockerfiles.get("flink.Dockerfile").exposed())
        .containsExactly(RestOptions.PORT.defaultValue(), JobManagerOptions.PORT.defaultValue(), 6124, scrape);
    assertThat(compose.publishedContainerPorts("jobmanager")).containsExactly(RestOptions.PORT.defaultValue());

    assertThat(dockerfiles.get("launcher.Dockerfile").exposed()).containsExactly(
        LocalConfig.DEFAULT_S3_PORT, LocalConfig.DEFAULT_FLIGHT_PORT, LocalConfig.DEFAULT_ADMIN_PORT);
  }

  @Test
  void flinkImageIsTheBuildsFlinkVersionWithFlinksOwnSettings() throws IOException, ClassNotFoundException {
    assertThat(dockerfiles.get("flink.Dockerfile").finalImage())
        .startsWith("flink:" + EnvironmentInformation.getVersion() + "-");
    assertThat(compose.command("jobmanager")).containsExactly("jobmanager");
    assertThat(compose.command("taskmanager")).containsExactly("taskmanager");
    Set<String> known = FlinkKeys.onClasspath();
    Set<String> reporterOptions = new java.util.HashSet<>(known);
    for (String factory : FlinkKeys.reporterFactories(ROOT.resolve("flink-conf/config.yaml"))) {
      Class<?> type = Class.forName(factory, false, getClass().getClassLoader());
      assertThat(org.apache.flink.metrics.reporter.MetricReporterFactory.class)
          .as("%s is a metrics reporter factory", factory).isAssignableFrom(type);
      reporterOptions.addAll(FlinkKeys.reporterArguments(type));
    }
    List<String> keys = new ArrayList<>(FlinkKeys.ofConfigFile(ROOT.resolve("flink-conf/config.yaml")));
    keys.addAll(FlinkKeys.ofProperties(compose.environment("jobmanager").get("FLINK_PROPERTIES")));
    assertThat(keys).isNotEmpty().allSatisfy(key -> assertThat(known.contains(key) || key.startsWith("s3.")
            || reporterOptions.contains(FlinkKeys.reporterOption(key)))
        .as("%s is a Flink setting (or the S3 filesystem plugin's, or a metrics reporter's)", key).isTrue());
    assertThat(compose.environment("taskmanager")).isEqualTo(compose.environment("jobmanager"));
  }

  @Test
  void cacheNodeEnvironmentHoldsEveryKeyItReads() {
    Map<String, String> env = compose.environment("cache-node");
    assertThatCode(() -> NodeKeys.from(env)).doesNotThrowAnyException();
    assertThat(env.keySet()).allSatisfy(name -> assertThat(NodeKeys.DESCRIPTION).contains(name));
    assertThat(NodeKeys.from(env).jobAccessKey()).isEqualTo(option(compose.command("ingest"), "--s3-access-key"));
  }

  @Test
  void cacheNodeAndIngestShareTheScopedTokenKeys() {
    Map<String, String> node = compose.environment("cache-node");
    Map<String, String> ingest = compose.environment("ingest");
    for (String name : List.of(ScopedTokens.KEY_ENV, ScopedTokens.PREVIOUS_KEYS_ENV)) {
      assertThat(node).as("cache-node's %s", name).containsKey(name);
      assertThat(ingest.get(name)).as("ingest's %s", name).isEqualTo(node.get(name));
    }
    assertThat(ScopedTokens.fromEnvironment(node, Clock.systemUTC()))
        .as("the cache node accepts scoped tokens (session credentials)").isPresent();
    assertThat(ScopedTokens.fromEnvironment(ingest, Clock.systemUTC()))
        .as("ingest accepts scoped tokens").isPresent();
  }

  private static ParseResult parse(List<String> args) {
    return new CommandLine(new Verglas()).parseArgs(args.toArray(String[]::new));
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).collect(Collectors.toList());
  }

  /** The value after {@code name} in {@code command}. */
  private static String option(List<String> command, String name) {
    int at = command.indexOf(name);
    assertThat(at).as("%s in %s", name, command).isNotNegative();
    return command.get(at + 1);
  }
}
