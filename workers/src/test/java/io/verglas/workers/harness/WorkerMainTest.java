package io.verglas.workers.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.PermanentFailureException;
import io.verglas.workers.api.Worker;
import io.verglas.workers.api.WorkerContext;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The run process's verdicts, told to the harness: which failures are permanent. */
class WorkerMainTest {
  /** Refuses its trigger for good, the refusal wrapped as a cause. */
  public static final class RefusingWorker implements Worker {
    @Override
    public void handle(WorkerContext ctx) {
      throw new IllegalStateException("cannot handle",
          new PermanentFailureException("event type t is not handled"));
    }
  }

  /** Fails in a way a retry may cure. */
  public static final class FlakyWorker implements Worker {
    @Override
    public void handle(WorkerContext ctx) {
      throw new IllegalStateException("try again");
    }
  }

  /** A worker class without a public no-argument constructor. */
  public static final class NeedyWorker implements Worker {
    public NeedyWorker(String needed) { }

    @Override
    public void handle(WorkerContext ctx) { }
  }

  @Test
  void aMissingWorkerClassIsAPermanentError() throws Exception {
    assertThat(terminal("com.example.Missing")).satisfies(e -> {
      assertThat(e.kind()).isEqualTo(RunEvent.Kind.PERMANENT_ERROR);
      assertThat(e.message()).contains("ClassNotFoundException").contains("com.example.Missing");
    });
  }

  @Test
  void aClassThatIsNotAWorkerOrHasNoNoArgConstructorIsAPermanentError() throws Exception {
    assertThat(terminal(String.class.getName()).kind()).isEqualTo(RunEvent.Kind.PERMANENT_ERROR);
    assertThat(terminal(NeedyWorker.class.getName()).kind())
        .isEqualTo(RunEvent.Kind.PERMANENT_ERROR);
  }

  @Test
  void aPermanentFailureAmongTheCausesIsAPermanentErrorAnyOtherIsAnError() throws Exception {
    RunEvent refused = terminal(RefusingWorker.class.getName());
    assertThat(refused.kind()).isEqualTo(RunEvent.Kind.PERMANENT_ERROR);
    assertThat(refused.message()).contains("event type t is not handled");
    assertThat(terminal(FlakyWorker.class.getName()).kind()).isEqualTo(RunEvent.Kind.ERROR);
  }

  /** Runs {@code workerClass} in a process of its own; the event that ended its run. */
  private static RunEvent terminal(String workerClass) throws Exception {
    Deployment deployment = new Deployment("d", null, workerClass, Map.of(), Map.of(),
        DataGrants.of(List.of(), List.of()), Map.of(), Duration.ofSeconds(30));
    RunSpec spec = new RunSpec(deployment, "d/manual/1", CloudEventBuilder.v1().withId("e1")
        .withSource(URI.create("/s")).withType("t").build(), "d/manual/1#1", 1,
        new WorkerEndpoints(URI.create("grpc+tcp://127.0.0.1:1"), "token",
            URI.create("http://127.0.0.1:2"), "token", null, null, Duration.ofSeconds(5)));
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", System.getProperty("java.class.path"), WorkerMain.class.getName())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(RunSpecParser.toJson(spec).getBytes(StandardCharsets.UTF_8));
    }
    List<RunEvent> events = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      out.lines().map(RunEventCodec::fromLine).filter(e -> e != null).forEach(events::add);
    }
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isNotZero();
    assertThat(events).isNotEmpty();
    return events.get(events.size() - 1);
  }
}
