package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.TestingCacheNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code aws-cli-smoke.sh} (cp, ls, rm, multipart, s3api conditional writes,
 * get-object-attributes, a directory marker) with the AWS CLI against a cache node.
 * Skipped, with the reason logged, where the {@code aws} command is not installed
 * ({@code apt-get install awscli}).
 */
class AwsCliScriptTest {
  private static final Logger LOG = LoggerFactory.getLogger(AwsCliScriptTest.class);
  @TempDir Path dir;

  private static String awsVersion() {
    try {
      Process p = new ProcessBuilder("aws", "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Test
  void copyListRemoveAndMultipartWithTheAwsCli() throws Exception {
    String version = awsVersion();
    if (version == null) {
      LOG.warn("Skipping the AWS CLI script test: no working 'aws' command on PATH (apt-get install awscli)");
    }
    Assumptions.assumeTrue(version != null, "no working 'aws' command on PATH (apt-get install awscli)");
    LOG.info("Running the AWS CLI script test with {}", version);

    Path script = dir.resolve("aws-cli-smoke.sh");
    try (InputStream in = getClass().getResourceAsStream("aws-cli-smoke.sh")) {
      Files.write(script, in.readAllBytes());
    }
    Path work = Files.createDirectories(dir.resolve("work"));
    try (TestingCacheNode t = new TestingCacheNode(dir.resolve("origin"))) {
      ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true);
      Map<String, String> env = pb.environment();
      env.put("ENDPOINT", t.node.endpoint().toString());
      env.put("BUCKET", TestingCacheNode.BUCKET);
      env.put("WORK", work.toString());
      env.put("AWS_ACCESS_KEY_ID", TestingCacheNode.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", TestingCacheNode.SECRET_KEY);
      env.put("AWS_CONFIG_FILE", work.resolve("none").toString());
      env.put("AWS_SHARED_CREDENTIALS_FILE", work.resolve("none").toString());
      env.remove("AWS_PROFILE");
      Process p = pb.start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      boolean finished = p.waitFor(180, TimeUnit.SECONDS);
      if (!finished) {
        p.destroyForcibly();
      }
      LOG.info("aws-cli-smoke.sh output:\n{}", output);
      assertThat(finished).as("script finished in time").isTrue();
      assertThat(p.exitValue()).as("exit status; output:\n%s", output).isZero();
      assertThat(output).contains("OK");
    }
  }
}
