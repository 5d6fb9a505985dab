package io.verglas.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchLauncherTest {
  @TempDir Path home;

  @Test
  void theChildRunsTheBenchCommandOnTheBenchClasspathWithEveryArgument() throws Exception {
    Path target = Files.createDirectories(home.resolve("bench/target"));
    Files.writeString(target.resolve("verglas-bench.jar"), "");
    Files.writeString(target.resolve("bench.classpath"), "/deps/a.jar:/deps/b.jar\n");

    List<String> command = BenchLauncher.command(home, List.of("cache", "--quick", "--out", "r.json"));

    int cp = command.indexOf("-cp");
    assertThat(command.get(cp + 1)).isEqualTo(target.resolve("verglas-bench.jar") + ":/deps/a.jar:/deps/b.jar");
    assertThat(command.subList(cp + 2, command.size()))
        .containsExactly(BenchLauncher.MAIN_CLASS, "cache", "--quick", "--out", "r.json");
    assertThat(command.get(0)).endsWith("java");
  }

  @Test
  void anUnbuiltBenchModuleIsAClearError() {
    assertThatThrownBy(() -> BenchLauncher.command(home, List.of("--list")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot run benchmarks: the bench module is not built")
        .hasMessageContaining("mvn -B -DskipTests -pl bench -am package");
  }
}
