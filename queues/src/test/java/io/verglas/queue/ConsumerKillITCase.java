package io.verglas.queue;

import static io.verglas.queue.QueueLogITCase.drain;
import static io.verglas.queue.QueueLogITCase.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.queue.group.GroupSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A consumer process killed (SIGKILL) while it holds a lease: the group's other consumer gets
 * everything else at once and the dead one's messages after the lease timeout; nothing is lost.
 */
class ConsumerKillITCase extends OnCacheNode {
  @Test
  void killedConsumersLeaseIsRedeliveredToTheSurvivorAfterTheTimeout() throws Exception {
    try (Queues queues = fixture.queues(QueueSettings.defaults())) {
      for (int i = 0; i < 5; i++) {
        queues.publish("killed", List.of(text("m" + i)));
      }
      Process child = new ProcessBuilder(command()).redirectError(ProcessBuilder.Redirect.INHERIT)
          .start();
      String line;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8))) {
        line = out.readLine();
      } finally {
        child.destroyForcibly();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(line).isEqualTo("LEASED 0 3");

      List<String> before = drain(queues.consumer("killed", "g", "survivor")).stream()
          .map(QueueLogITCase::text).toList();
      assertThat(before).containsExactly("m4");
      // the test's clock stands still at the fixture's start; the child leased on the system
      // clock a little later: move well past its deadline
      fixture.clock.advance(GroupSettings.LEASE_TIMEOUT_DEFAULT.plus(Duration.ofMinutes(10)));
      List<String> after = drain(queues.consumer("killed", "g", "survivor")).stream()
          .map(QueueLogITCase::text).toList();
      assertThat(after).containsExactly("m0", "m1", "m2", "m3");
      assertThat(queues.group("killed", "g").state().acked()).isEqualTo(4);
      assertThat(queues.group("killed", "g").state().leases()).isEmpty();
    }
  }

  /** A JVM like this one (its --add-opens: Arrow needs java.nio) running {@link LeaseHolder}. */
  private static List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens")) {
        command.add(argument);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        LeaseHolder.class.getName(), fixture.endpoint.endpoint().toString(),
        fixture.endpoint.region(), fixture.endpoint.accessKey(), fixture.endpoint.secretKey(),
        QueueFixture.BUCKET, "killed", "g"));
    return command;
  }
}
