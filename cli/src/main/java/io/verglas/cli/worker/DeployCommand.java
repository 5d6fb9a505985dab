package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.workers.deploy.DeploymentRecord;
import io.verglas.workers.deploy.DeploymentRecordParser;
import io.verglas.workers.deploy.DeploymentRevision;
import io.verglas.workers.deploy.TriggerSpec;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code verglas deploy FILE.json}. */
@Command(name = "deploy", mixinStandardHelpOptions = true, description = "Store a deployment "
    + "(a JSON file, docs/workers.md) as its next revision in verglas_sys.deployments; the "
    + "stack's scheduler runs its triggers. A relative code.jar resolves beside the file. "
    + "Warns (on standard error) of each granted table the stack does not have yet.")
public final class DeployCommand implements Callable<Integer> {
  @Mixin StackOptions stack;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "FILE", description = "The deployment file (JSON)")
  Path file;

  @Override
  public Integer call() throws Exception {
    Path absolute = file.toAbsolutePath();
    if (!Files.isRegularFile(absolute)) {
      throw new IllegalArgumentException("Cannot deploy: no deployment file " + absolute);
    }
    DeploymentRecord record = DeploymentRecordParser.fromJson(Files.readString(absolute),
        absolute.getParent());
    Path jar = Path.of(record.jar());
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException("Cannot deploy " + record.name() + ": its jar " + jar
          + " is not a file");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (WorkerPlane plane = new WorkerPlane(stack)) {
      DeploymentRevision revision = plane.store().deploy(record);
      out.println("Deployed " + record.name() + " revision " + revision.revision() + ": "
          + record.workerClass() + " in " + jar + "; triggers: " + triggers(record));
      PrintWriter err = spec.commandLine().getErr();
      MissingTables.warnings(plane.client(), record).forEach(err::println);
      err.flush();
      if (!plane.workersOn()) {
        out.println("The running stack runs no workers, so nothing runs it yet (see the "
            + "Workers line of `verglas local`).");
      }
    }
    out.flush();
    return 0;
  }

  static String triggers(DeploymentRecord record) {
    if (record.triggers().isEmpty()) {
      return "none (manual runs only)";
    }
    return record.triggers().stream().map(DeployCommand::trigger).collect(Collectors.joining(", "));
  }

  private static String trigger(TriggerSpec t) {
    return t.name() + " (" + (t instanceof TriggerSpec.Cron c ? "cron " + c.expression() : t.type()) + ")";
  }
}
