package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.workers.deploy.DeploymentRevision;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code verglas deployments}. */
@Command(name = "deployments", mixinStandardHelpOptions = true,
    description = "List the deployments: the latest revision of each, active or undeployed.")
public final class DeploymentsCommand implements Callable<Integer> {
  static final String FORMAT = "%-24s %8s %-10s %-32s %-27s %s%n";
  @Mixin StackOptions stack;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (WorkerPlane plane = new WorkerPlane(stack)) {
      List<DeploymentRevision> current = plane.store().currentAll();
      out.printf(FORMAT, "NAME", "REVISION", "STATE", "CLASS", "CREATED", "TRIGGERS");
      for (DeploymentRevision r : current) {
        out.printf(FORMAT, r.name(), r.revision(), r.state().name().toLowerCase(Locale.ROOT),
            r.record().workerClass(), r.createdAt(), DeployCommand.triggers(r.record()));
      }
    }
    out.flush();
    return 0;
  }
}
