package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.workers.schedule.JobStatus;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code verglas runs NAME}. */
@Command(name = "runs", mixinStandardHelpOptions = true, description = "List a deployment's "
    + "jobs from the scheduler's queue, newest first: identity, state (ready, leased, done, "
    + "dead), attempts, next due time, last error.")
public final class RunsCommand implements Callable<Integer> {
  /** The widest JOB column: a longer identity pushes its own row's columns, not every row's. */
  static final int MAX_JOB_CHARS = 120;
  private static final String COLUMNS = " %-7s %8s %-27s %s%n";
  private static final int ERROR_CHARS = 200;
  @Mixin StackOptions stack;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "NAME", description = "The deployment")
  String name;

  @Option(names = "--limit", description = "Jobs at most (default: 20)")
  int limit = 20;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (WorkerPlane plane = new WorkerPlane(stack)) {
      plane.current("list runs of " + name, name);
      List<JobStatus> jobs = plane.queue("list runs of " + name).jobs(name, limit);
      String format = format(jobs);
      out.printf(format, "JOB", "STATE", "ATTEMPTS", "DUE", "LAST ERROR");
      for (JobStatus job : jobs) {
        out.printf(format, job.identity(), job.state().name().toLowerCase(Locale.ROOT),
            job.attempts(), job.state().finished() ? "-" : job.runAt(),
            job.lastError().map(RunsCommand::firstLine).orElse(""));
      }
    }
    out.flush();
    return 0;
  }

  /** The row format, its JOB column as wide as the longest identity listed (bounded). */
  static String format(List<JobStatus> jobs) {
    int width = jobs.stream().mapToInt(job -> job.identity().length()).max().orElse(0);
    return "%-" + Math.min(Math.max(width, "JOB".length()), MAX_JOB_CHARS) + "s" + COLUMNS;
  }

  private static String firstLine(String error) {
    String line = error.lines().findFirst().orElse("");
    return line.length() <= ERROR_CHARS ? line : line.substring(0, ERROR_CHARS) + "...";
  }
}
