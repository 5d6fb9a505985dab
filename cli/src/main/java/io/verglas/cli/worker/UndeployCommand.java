package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.workers.deploy.DeploymentRevision;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code verglas undeploy NAME}. */
@Command(name = "undeploy", mixinStandardHelpOptions = true, description = "Store an undeployed "
    + "revision of a deployment: the stack's scheduler stops its triggers and cancels its "
    + "waiting jobs (runs in progress finish).")
public final class UndeployCommand implements Callable<Integer> {
  @Mixin StackOptions stack;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "NAME", description = "The deployment")
  String name;

  @Override
  public Integer call() {
    try (WorkerPlane plane = new WorkerPlane(stack)) {
      DeploymentRevision revision = plane.store().undeploy(name);
      spec.commandLine().getOut().println("Undeployed " + name + " (revision "
          + revision.revision() + ")");
    }
    spec.commandLine().getOut().flush();
    return 0;
  }
}
