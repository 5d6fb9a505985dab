package io.verglas.cli.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The launcher's logging configuration, in a JVM of its own: text by default, JSON lines on request. */
class LogFormatTest {
  /** What the child JVM runs: one line at INFO from a Verglas logger. */
  public static void main(String[] args) {
    LogFormat.apply(System.getenv());
    LoggerFactory.getLogger("io.verglas.cli.Example").info("the stack is up on port {}", 9100);
  }

  @Test
  void jsonOnRequestOneObjectALine() throws Exception {
    String err = run("json");
    List<String> lines = err.lines().filter(l -> !l.isBlank()).toList();
    assertThat(lines).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(lines.get(0));
    assertThat(line.path("level").asText()).isEqualTo("INFO");
    assertThat(line.path("loggerName").asText()).isEqualTo("io.verglas.cli.Example");
    assertThat(line.path("formattedMessage").asText()).isEqualTo("the stack is up on port 9100");
    assertThat(line.has("timestamp")).isTrue();
  }

  @Test
  void anUnknownFormatIsRefused() {
    assertThatThrownBy(() -> LogFormat.apply(java.util.Map.of(LogFormat.VARIABLE, "xml")))
        .hasMessage("Cannot use log format xml (VERGLAS_LOG_FORMAT): text or json");
  }

  @Test
  void textByDefault() throws Exception {
    assertThat(run(null).strip()).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  io\\.verglas\\.cli\\.Example - the stack is up on port 9100");
  }

  private static String run(String format) throws Exception {
    // the tests' own logback-test.xml comes first on this class path: name the launcher's file,
    // unless the format is to choose it
    ProcessBuilder builder = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        LogFormatTest.class.getName());
    if (format == null) {
      builder.command().add(1, "-D" + LogFormat.LOGBACK_CONFIGURATION + "=logback.xml");
    }
    builder.environment().remove("VERGLAS_LOG_FORMAT");
    if (format != null) {
      builder.environment().put("VERGLAS_LOG_FORMAT", format);
    }
    Process process = builder.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(err).isZero();
    return err;
  }
}
