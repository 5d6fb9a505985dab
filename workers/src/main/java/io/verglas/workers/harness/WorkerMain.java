package io.verglas.workers.harness;

import io.verglas.sdk.VerglasClient;
import io.verglas.workers.api.PermanentFailureException;
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
 *
 * <p>Permanent failures. A worker class that is missing from the jar, is not a {@link Worker} or
 * has no public no-argument constructor, and a run that threw a
 * {@link PermanentFailureException} (a data or queue grant refusal is one) end with a
 * {@link RunEvent.Kind#PERMANENT_ERROR} event instead of an error event: the harness then fails
 * the job for good rather than retrying it.
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
    } catch (Exception e) {
      reporter.failed("Cannot start the run: " + describe(e));
      return NOT_STARTED;
    }
    try {
      worker = instantiate(spec.deployment().workerClass());
    } catch (Exception | LinkageError e) { // the jar will not change: no retry can load it
      reporter.failedPermanently("Cannot start the run: " + describe(e));
      return NOT_STARTED;
    }
    try (VerglasClient client = spec.endpoints().client();
        RunContext context = new RunContext(spec, client, reporter)) {
      worker.handle(context);
      reporter.ended(context.rowsCommitted(), context.commits() + " commits");
      return 0;
    } catch (Exception | Error e) {
      if (PermanentFailureException.isPermanent(e)) {
        reporter.failedPermanently(describe(e));
      } else {
        reporter.failed(describe(e));
      }
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
