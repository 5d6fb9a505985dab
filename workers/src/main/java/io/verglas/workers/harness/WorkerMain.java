package io.verglas.workers.harness;

import io.verglas.sdk.VerglasClient;
import io.verglas.workers.api.Worker;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * The main class of a run's process: reads the {@link RunSpec} from standard input, runs the
 * worker once and reports every event to the harness on standard output (which it takes for
 * itself: the worker's {@code System.out} goes to standard error).
 *
 * <p>Exit status: 0 after the end event, 1 after an error event for a failed run, 2 after an
 * error event for a run that could not start (bad spec, unknown or unusable worker class).
 */
public final class WorkerMain {
  static final int FAILED = 1;
  static final int NOT_STARTED = 2;

  private WorkerMain() {}

  public static void main(String[] args) {
    PrintStream protocol = System.out;
    System.setOut(System.err);
    int status = run(new RunReporter(protocol, Clock.systemUTC()));
    System.exit(status); // the worker may have left non-daemon threads behind
  }

  private static int run(RunReporter reporter) {
    RunSpec spec;
    Worker worker;
    try {
      spec = RunSpecParser.fromJson(new String(System.in.readAllBytes(), StandardCharsets.UTF_8));
      worker = instantiate(spec.deployment().workerClass());
    } catch (Exception | LinkageError e) {
      reporter.failed("Cannot start the run: " + describe(e));
      return NOT_STARTED;
    }
    try (VerglasClient client = spec.endpoints().client();
        RunContext context = new RunContext(spec, client, reporter)) {
      worker.handle(context);
      reporter.ended(context.rowsCommitted(), context.commits() + " commits");
      return 0;
    } catch (Exception | Error e) {
      reporter.failed(describe(e));
      return FAILED;
    }
  }

  private static Worker instantiate(String className) throws ReflectiveOperationException {
    Class<?> type = Class.forName(className, true, WorkerMain.class.getClassLoader());
    if (!Worker.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException("Cannot use " + className + " as a worker: it does not"
          + " implement " + Worker.class.getName());
    }
    return (Worker) type.getConstructor().newInstance();
  }

  private static String describe(Throwable e) {
    String message = e.getClass().getSimpleName() + ": " + e.getMessage();
    return e.getCause() == null ? message : message + " (caused by " + e.getCause() + ")";
  }
}
