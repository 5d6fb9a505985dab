package io.verglas.cli.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlinkClasspathTest {
  private static final String REPO = "/home/u/.m2/repository/";

  @Test
  void keepsFlinkAndItsRuntimeLibrariesAndDropsWhatTheJobsBring() {
    String classpath = String.join(":",
        "/work/cli/target/classes",
        REPO + "org/apache/flink/flink-runtime/2.1.1/flink-runtime-2.1.1.jar",
        REPO + "org/apache/flink/flink-runtime-web/2.1.1/flink-runtime-web-2.1.1.jar",
        REPO + "org/apache/flink/flink-shaded-guava/33.4.0-jre-20.0/flink-shaded-guava-33.4.0-jre-20.0.jar",
        REPO + "org/apache/flink/flink-s3-fs-hadoop/2.1.1/flink-s3-fs-hadoop-2.1.1.jar",
        REPO + "org/apache/flink/flink-metrics-prometheus/2.0.0/flink-metrics-prometheus-2.0.0.jar",
        REPO + "org/apache/commons/commons-compress/1.28.0/commons-compress-1.28.0.jar",
        REPO + "org/xerial/sqlite-jdbc/3.53.0.0/sqlite-jdbc-3.53.0.0.jar",
        REPO + "org/apache/iceberg/iceberg-core/1.11.0/iceberg-core-1.11.0.jar",
        REPO + "io/verglas/verglas-core/0.1.0-SNAPSHOT/verglas-core-0.1.0-SNAPSHOT.jar",
        REPO + "software/amazon/awssdk/s3/2.57.8/s3-2.57.8.jar");

    assertThat(FlinkClasspath.of(classpath)).extracting(path -> path.getFileName().toString())
        .containsExactly("flink-runtime-2.1.1.jar", "flink-runtime-web-2.1.1.jar",
            "flink-shaded-guava-33.4.0-jre-20.0.jar", "commons-compress-1.28.0.jar",
            "sqlite-jdbc-3.53.0.0.jar");
  }

  @Test
  void thisJvmCarriesEveryLibraryFlinksRuntimeNeeds() {
    List<String> jars = FlinkClasspath.ofThisJvm().stream()
        .map(path -> path.getFileName().toString()).toList();

    // the runtime dependencies of flink-runtime, -clients, -streaming-java, the RocksDB state
    // backend and flink-runtime-web (mvn dependency:list of those five)
    for (String artifact : List.of("flink-runtime-", "flink-runtime-web-", "flink-clients-",
        "flink-streaming-java-", "flink-statebackend-rocksdb-", "flink-rpc-akka-loader-",
        "frocksdbjni-", "kryo-", "commons-compress-", "commons-lang3-", "commons-io-",
        "snakeyaml-engine-", "lz4-java-", "snappy-java-", "slf4j-api-", "logback-classic-")) {
      assertThat(jars).as(artifact).anyMatch(jar -> jar.startsWith(artifact));
    }
    assertThat(jars).noneMatch(jar -> jar.startsWith("iceberg-") || jar.startsWith("verglas-"));
  }

  @Test
  void failsClearlyWithoutFlinksRuntime() {
    assertThatThrownBy(() -> FlinkClasspath.of(REPO + "org/apache/iceberg/iceberg-core-1.11.0.jar"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot start a Flink session cluster: flink-runtime and flink-runtime-web");
  }

  @Test
  void joinsWithThePathSeparator() {
    assertThat(FlinkClasspath.join(List.of(Path.of("/a.jar"), Path.of("/b.jar")))).isEqualTo("/a.jar:/b.jar");
  }
}
