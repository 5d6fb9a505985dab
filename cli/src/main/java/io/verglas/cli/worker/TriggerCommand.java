package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.workers.deploy.DeploymentRevision;
import io.verglas.workers.deploy.ManualTriggers;
import io.verglas.workers.schedule.NewJob;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code verglas trigger NAME}. */
@Command(name = "trigger", mixinStandardHelpOptions = true, description = "Run a deployment "
    + "now: enqueue a manual job whose identity is NAME/manual/ID (or "
    + "NAME/manual/TRIGGER/LOGICAL_DATE for one cron interval), so triggering the same again "
    + "enqueues nothing.")
public final class TriggerCommand implements Callable<Integer> {
  @Mixin StackOptions stack;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "NAME", description = "The deployment")
  String name;

  @Option(names = "--id", description = "The run's id (default: a new one, printed; name it "
      + "again to retry without running twice)")
  String id;

  @Option(names = "--cron", paramLabel = "TRIGGER", description = "Run this cron trigger's "
      + "interval starting at --logical-date, with its tick event")
  String cron;

  @Option(names = "--logical-date", paramLabel = "TIME", description = "The interval's start "
      + "(a fire time, e.g. 2026-12-01T10:00:00Z), with --cron")
  Instant logicalDate;

  @Override
  public Integer call() {
    if ((cron == null) != (logicalDate == null) || (cron != null && id != null)) {
      throw new IllegalArgumentException("Cannot trigger " + name + ": give --cron with "
          + "--logical-date, or --id, or neither");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (WorkerPlane plane = new WorkerPlane(stack)) {
      DeploymentRevision current = plane.current("trigger " + name, name);
      if (!current.active()) {
        throw new IllegalArgumentException("Cannot trigger " + name + ": revision "
            + current.revision() + " undeployed it");
      }
      NewJob job = cron != null ? ManualTriggers.interval(current.record(), cron, logicalDate)
          : ManualTriggers.run(current.record(), id != null ? id : UUID.randomUUID().toString(),
              Instant.now());
      boolean added = plane.queue("trigger " + name).enqueue(job);
      out.println((added ? "Enqueued " : "Already enqueued (nothing added): ") + job.identity());
    }
    out.flush();
    return 0;
  }
}
