package io.verglas.workers.harness;

import io.verglas.workers.api.WorkerLog;
import java.io.PrintStream;
import java.time.Clock;

/**
 * The run process's side of the line protocol: writes {@link RunEvent}s to the harness, one
 * flushed line each (so an event reported before a kill is not lost in a buffer). It is also
 * the worker's {@link WorkerLog}.
 */
final class RunReporter implements WorkerLog {
  private final PrintStream out;
  private final Clock clock;

  RunReporter(PrintStream out, Clock clock) {
    this.out = out;
    this.clock = clock;
  }

  synchronized void report(RunEvent event) {
    out.println(RunEventCodec.toLine(event));
    out.flush();
  }

  void committed(String table, long rows, long snapshotId, String key) {
    report(RunEvent.commit(clock.instant(), table, rows, snapshotId, key));
  }

  void ended(long rows, String message) {
    report(RunEvent.end(clock.instant(), rows, message));
  }

  void failed(String message) {
    report(RunEvent.error(clock.instant(), message));
  }

  void failedPermanently(String message) {
    report(RunEvent.permanentError(clock.instant(), message));
  }

  @Override
  public void info(String message) {
    report(RunEvent.log(clock.instant(), "info", message));
  }

  @Override
  public void warn(String message) {
    report(RunEvent.log(clock.instant(), "warn", message));
  }

  @Override
  public void error(String message) {
    report(RunEvent.log(clock.instant(), "error", message));
  }
}
