package io.verglas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A failed command is one line naming the whole command, and exit status 1. */
class ErrorReporterTest {
  @TempDir Path dir;

  @Test
  void aSubcommandsFailureNamesTheWholeCommand() {
    Path missing = dir.resolve("missing.deployment.json").toAbsolutePath();
    assertThat(run("deploy", missing.toString()))
        .isEqualTo("verglas deploy: Cannot deploy: no deployment file " + missing + "\n");
    Path jar = dir.resolve("missing.jar").toAbsolutePath();
    assertThat(run("worker", "check", jar.toString(), "example.Missing", "--fixture",
        Path.of("../docs/examples/workers/hourly-check.json").toString()))
        .isEqualTo("verglas worker check: Cannot check worker: no jar at " + jar + "\n");
  }

  private static String run(String... args) {
    StringWriter err = new StringWriter();
    int exit = new CommandLine(new Verglas()).setErr(new PrintWriter(err))
        .setExecutionExceptionHandler(new ErrorReporter()).execute(args);
    assertThat(exit).isEqualTo(1);
    return err.toString();
  }
}
