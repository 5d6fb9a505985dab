package io.verglas.cli.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** flink-conf/config.yaml as the session cluster's processes read it, with the local settings. */
class ClusterFilesTest {
  @TempDir Path dir;

  @Test
  void writesFlinkConfWithTheLocalSettingsAndTheClustersOverrides() {
    FlinkClusterConfig config = FlinkClusterConfig.builder(dir).taskSlots(3)
        .taskManagerMemory("1280m").checkpointDir("s3://warehouse/_flink")
        .set("s3.endpoint", "http://127.0.0.1:9100").build();

    new ClusterFiles(dir).write(config, 18081, 16123);
    Configuration read = GlobalConfiguration.loadConfiguration(dir.resolve("conf").toString());

    // flink-conf's own settings are kept
    assertThat(read.getString("state.backend.type", null)).isEqualTo("rocksdb");
    assertThat(read.getString("execution.checkpointing.incremental", null)).isEqualTo("true");
    assertThat(read.getString("classloader.parent-first-patterns.additional", null))
        .contains("org.sqlite.");
    // the local ones: loopback, the chosen ports, files under the cluster's directory
    assertThat(read.getString("rest.bind-address", null)).isEqualTo("127.0.0.1");
    assertThat(read.getString("rest.port", null)).isEqualTo("18081");
    assertThat(read.getString("jobmanager.rpc.port", null)).isEqualTo("16123");
    assertThat(read.getString("io.tmp.dirs", null)).isEqualTo(dir.resolve("tmp/io").toString());
    // the cluster's overrides win over the file
    assertThat(read.getString("taskmanager.numberOfTaskSlots", null)).isEqualTo("3");
    assertThat(read.getString("taskmanager.memory.process.size", null)).isEqualTo("1280 mb");
    assertThat(read.getString("execution.checkpointing.dir", null))
        .isEqualTo("s3://warehouse/_flink/checkpoints");
    assertThat(read.getString("execution.checkpointing.savepoint-dir", null))
        .isEqualTo("s3://warehouse/_flink/savepoints");
    assertThat(read.getString("s3.endpoint", null)).isEqualTo("http://127.0.0.1:9100");
    assertThat(dir.resolve("conf/logback.xml")).exists();
  }

  @Test
  void rejectsBadSettingsNamingTheValue() {
    FlinkClusterConfig.Builder builder = FlinkClusterConfig.builder(dir);
    assertThatThrownBy(() -> builder.taskManagerMemory("512m"))
        .hasMessage("Invalid TaskManager memory: 512m (at least 1024m)");
    assertThatThrownBy(() -> builder.jobManagerMemory("lots"))
        .hasMessage("Invalid JobManager memory: lots");
    assertThatThrownBy(() -> builder.checkpointDir("hdfs:///x"))
        .hasMessage("Invalid checkpoint directory: hdfs:///x (s3://bucket/path or file:///path)");
    assertThatThrownBy(() -> builder.taskSlots(0)).hasMessage("Invalid number of task slots: 0");
    assertThatThrownBy(() -> builder.restPort(70_000)).hasMessage("Invalid REST port: 70000");
  }
}
